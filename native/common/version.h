// Version and layout constants shared by the core and the binding.
#pragma once

namespace vigil {
constexpr const char* kCoreVersion = "0.1.0";
}  // namespace vigil
