// Capture errors -> JS Error objects with `code`.
#include "binding/errors.h"

namespace vigil {

Napi::Error MakeCaptureError(Napi::Env env, CaptureError error, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, CaptureErrorCode(error)));
  return e;
}

}  // namespace vigil
