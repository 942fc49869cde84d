// Stratum, the JSON-RPC protocol between crypto-currency miners and their pools: recognised by its first message
// (a request naming a mining method), as nDPI's `src/lib/protocols/mining.c` and the ET OPEN "ET COINMINER" rules
// recognise it. Only the label is kept (AppProto::kStratum).
#pragma once

#include <cstdint>

namespace vigil {

// True when `data` is a JSON object (first byte `{` after white space) whose first 512 bytes hold `"method"` and a
// mining method: a `mining.*` call of Stratum V1 (`mining.subscribe`, `mining.authorize`, `mining.submit`,
// `mining.notify`, `mining.set_target`, `mining.set_difficulty`), the Ethereum stratum proxy's `eth_submitLogin`,
// `eth_getWork` or `eth_submitWork`, or the Monero pool login (`"login"` with the miner's `"agent"`).
bool LooksLikeStratum(const uint8_t* data, uint32_t len);

}  // namespace vigil
