// Digests with fetched algorithms and a per-thread context (see digest.h).
#include "app/digest.h"

namespace vigil {

namespace {

const EVP_MD* Fetched(DigestAlgorithm algorithm) {
  // Fetched once per process; never freed (they live as long as the library).
  static EVP_MD* const md5 = EVP_MD_fetch(nullptr, "MD5", nullptr);
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  switch (algorithm) {
    case DigestAlgorithm::kMd5:
      return md5 != nullptr ? md5 : EVP_md5();
    case DigestAlgorithm::kSha256:
      return sha256 != nullptr ? sha256 : EVP_sha256();
  }
  return EVP_sha256();
}

struct ContextHolder {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~ContextHolder() { EVP_MD_CTX_free(ctx); }
};

}  // namespace

unsigned int ComputeDigest(DigestAlgorithm algorithm, const void* data, size_t len, unsigned char* out) {
  thread_local ContextHolder holder;
  EVP_MD_CTX* ctx = holder.ctx;
  unsigned int n = 0;
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, Fetched(algorithm), nullptr) != 1 ||
      EVP_DigestUpdate(ctx, data, len) != 1 || EVP_DigestFinal_ex(ctx, out, &n) != 1) {
    return 0;
  }
  return n;
}

}  // namespace vigil
