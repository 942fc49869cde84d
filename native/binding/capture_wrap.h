// CaptureWrap: the `Capture` class of the addon (ObjectWrap): start/stop/stats of one capture session at a time,
// flow batches and stats delivered to a JS callback through a bounded thread-safe function.
#pragma once

#include <napi.h>

#include "capture/capture_thread.h"

namespace vigil {

struct CaptureSession;

class CaptureWrap : public Napi::ObjectWrap<CaptureWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit CaptureWrap(const Napi::CallbackInfo& info);
  ~CaptureWrap() override;

  // Called by the session (JS thread) when it ended, with the final counters.
  void SessionEnded(CaptureSession* session, const CaptureStats& stats);

 private:
  // start(options, onEvent): opens the source (throws a coded Error on failure) and starts the capture thread.
  // Returns false when a session is already running (idempotent).
  Napi::Value JsStart(const Napi::CallbackInfo& info);
  // stop(): asks the running session to stop; the 'end' event follows. Returns false when nothing runs.
  Napi::Value JsStop(const Napi::CallbackInfo& info);
  // stats(): the latest counters (plain object).
  Napi::Value JsStats(const Napi::CallbackInfo& info);
  Napi::Value JsRunning(const Napi::CallbackInfo& info);
  // Capture.releaseBatch(batch) (static): gives back a batch lent with lendBatches once JS is done with it: detaches
  // the ArrayBuffer and recycles its memory for a later batch. Any session's batch, also after its session ended.
  // Returns false (and does nothing) for a buffer that is not such a batch or was given back already.
  static Napi::Value JsReleaseBatch(const Napi::CallbackInfo& info);

  CaptureSession* session_ = nullptr;
  CaptureStats last_stats_;
};

// Builds the plain JS stats object (one Set per field). JS thread only.
Napi::Object StatsToObject(Napi::Env env, const CaptureStats& s);

// Registers listInterfaces() and the layout constants.
void InitDevices(Napi::Env env, Napi::Object exports);

}  // namespace vigil
