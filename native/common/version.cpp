// Anchors the netcore library so it always has at least one translation unit.
#include "common/version.h"

namespace vigil {
const char* CoreVersion() { return kCoreVersion; }
}  // namespace vigil
