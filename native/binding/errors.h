// Capture errors as JS Error objects with a stable `code` (ERR_CAPTURE_*), wrapped in src/native/errors.ts.
#pragma once

#include <napi.h>

#include <string>

#include "capture/pcap_source.h"

namespace vigil {

// Builds (does not throw) an Error whose `code` is CaptureErrorCode(error). JS thread only.
Napi::Error MakeCaptureError(Napi::Env env, CaptureError error, const std::string& message);

}  // namespace vigil
