// Message digests for fingerprints (JA3's MD5, JA4's SHA-256) through OpenSSL's EVP API,
// without its per-call costs: each algorithm is fetched once (EVP_Digest with EVP_sha1() looks the implementation up
// in a locked hash table on every call) and each thread reuses one digest context.
#pragma once

#include <openssl/evp.h>

#include <cstddef>

namespace vigil {

enum class DigestAlgorithm { kMd5, kSha256 };

// Writes the digest of data[0..len) to out (EVP_MAX_MD_SIZE bytes of room) and returns its length; 0 on failure.
unsigned int ComputeDigest(DigestAlgorithm algorithm, const void* data, size_t len, unsigned char* out);

}  // namespace vigil
