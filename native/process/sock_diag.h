// SockDiag: asks the kernel (NETLINK_SOCK_DIAG, inet_diag_req_v2) which socket owns a TCP or UDP 5-tuple: its inode
// and uid. Linux only. The request layout is the one ss(8) (iproute2 misc/ss.c) and OpenSnitch
// (daemon/netlink/socket_linux.go) send; they dump and filter, this asks for one socket without NLM_F_DUMP, which the
// kernel answers with its own hash lookup (net/ipv4/inet_diag.c inet_diag_find_one_icsk, net/ipv4/udp_diag.c
// udp_dump_one).
#pragma once

#include <cstdint>

namespace vigil {

// A connection as seen from this host. Addresses are 16 bytes, IPv4 mapped (::ffff:a.b.c.d); ports host order.
struct SocketTuple {
  uint8_t protocol = 0;  // 6 TCP, 17 UDP
  bool ipv6 = false;
  uint8_t local[16] = {};
  uint8_t remote[16] = {};
  uint16_t local_port = 0;
  uint16_t remote_port = 0;
};

struct SocketOwner {
  uint32_t inode = 0;  // sockfs inode (/proc/<pid>/fd/N -> "socket:[inode]"); 0 = no file (TIME_WAIT, orphan)
  uint32_t uid = 0;    // the socket's owner uid
};

enum class DiagResult : uint8_t { kFound, kNotFound, kError };

// One netlink socket in the network namespace of the thread that created it. Not thread-safe: one user thread.
class SockDiag {
 public:
  SockDiag();
  ~SockDiag();
  SockDiag(const SockDiag&) = delete;
  SockDiag& operator=(const SockDiag&) = delete;

  bool ok() const { return fd_ >= 0; }
  // Exact lookup of the socket bound to `t` (a listening TCP socket or an unconnected UDP socket matches too, as
  // the kernel's receive path would pick it). kFound only for a socket with an inode. Blocks for one round trip.
  DiagResult Lookup(const SocketTuple& t, SocketOwner* out);

 private:
  int fd_ = -1;
  uint32_t seq_ = 0;
};

}  // namespace vigil
