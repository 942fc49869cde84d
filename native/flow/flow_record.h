// FlowEntry: one live flow in the table (key, direction, lifecycle links, features) and why a flow ended.
#pragma once

#include <cstdint>
#include <memory>

#include "features/flow_features.h"
#include "flow/flow_key.h"

namespace vigil {

struct AppState;     // native/app/app_layer.h
struct ProcessSlot;  // native/process/process_info.h

// Why a flow record was emitted. Values are part of the batch layout (see binding/batch_encoder.h).
enum class EndReason : uint8_t { kIdle = 0, kActive, kFin, kRst, kEvicted, kFlush, kSnapshot };

inline const char* EndReasonName(EndReason r) {
  switch (r) {
    case EndReason::kIdle:
      return "idle";
    case EndReason::kActive:
      return "active";
    case EndReason::kFin:
      return "fin";
    case EndReason::kRst:
      return "rst";
    case EndReason::kEvicted:
      return "evicted";
    case EndReason::kFlush:
      return "flush";
    case EndReason::kSnapshot:
      return "snapshot";
  }
  return "unknown";
}

constexpr uint32_t kNoFlow = 0xFFFFFFFFu;

// A slot of the flow table's pool (the table keeps each slot's hash and list links apart: FlowTable::FlowLinks).
// Owned by FlowTable; the capture thread is the only reader and writer.
struct FlowEntry {
  FlowKey key;
  uint64_t id = 0;          // monotonic per table, starting at 1
  uint32_t generation = 0;  // bumped each time the slot is reused (fragment map and closing queue check it)
  bool in_use = false;
  bool initiator_is_lo = false;  // direction bit: the initiator is key.addr_lo/port_lo
  bool closing = false;          // TCP close seen (FIN both ways or RST); ends after the linger
  EndReason close_reason = EndReason::kFin;
  uint8_t fin_seen = 0;  // bit 0: fwd FIN, bit 1: bwd FIN
  uint8_t ip_version = 0;
  int64_t close_ns = 0;
  int64_t last_snapshot_ns = 0;
  // Application layer (native/app): the label (AppProto, AppBy values), whether inspection is over, and the parsed
  // state (owned by the AppLayer; nullptr when the flow carried nothing worth parsing or the layer is off).
  uint8_t app_proto = 0;
  uint8_t app_by = 0;
  bool app_done = false;
  uint8_t app_tries = 0;  // payload packets offered to recognition: fwd in the low nibble, bwd in the high one
  AppState* app = nullptr;
  // The program owning the flow's local socket, looked up at the flow's first packet (live capture on Linux);
  // nullptr when nobody asked. Shared with the resolver thread, which fills it in (see ProcessSlot).
  std::shared_ptr<ProcessSlot> process;
  FlowFeatures f;
};

}  // namespace vigil
