// SockDiag: exact socket lookups over NETLINK_SOCK_DIAG.
#include "process/sock_diag.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vigil {

namespace {
bool IsMappedV4(const uint8_t* a) {
  static const uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(a, kPrefix, 12) == 0;
}
}  // namespace

SockDiag::SockDiag() {
  fd_ = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd_ < 0) return;
  timeval tv{1, 0};  // the kernel answers at once; the timeout only guards against a lost reply
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

SockDiag::~SockDiag() {
  if (fd_ >= 0) close(fd_);
}

DiagResult SockDiag::Lookup(const SocketTuple& t, SocketOwner* out) {
  if (fd_ < 0) return DiagResult::kError;
  struct {
    nlmsghdr nlh;
    inet_diag_req_v2 req;
  } msg;
  std::memset(&msg, 0, sizeof msg);
  msg.nlh.nlmsg_len = sizeof msg;
  msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  msg.nlh.nlmsg_flags = NLM_F_REQUEST;  // no NLM_F_DUMP: one socket, found by the kernel's own hash lookup
  msg.nlh.nlmsg_seq = ++seq_;
  const bool v4 = !t.ipv6 && IsMappedV4(t.local) && IsMappedV4(t.remote);
  msg.req.sdiag_family = v4 ? AF_INET : AF_INET6;
  msg.req.sdiag_protocol = t.protocol;
  msg.req.idiag_states = ~0u;
  // TCP looks the pair up as (src = local, dst = remote); UDP as a received datagram would be, with src and dst
  // swapped ("for historical reasons", net/ipv4/udp_diag.c udp_dump_one).
  const bool swap = t.protocol == IPPROTO_UDP;
  const uint8_t* src = swap ? t.remote : t.local;
  const uint8_t* dst = swap ? t.local : t.remote;
  const uint16_t sport = swap ? t.remote_port : t.local_port;
  const uint16_t dport = swap ? t.local_port : t.remote_port;
  msg.req.id.idiag_sport = htons(sport);
  msg.req.id.idiag_dport = htons(dport);
  if (v4) {
    std::memcpy(msg.req.id.idiag_src, src + 12, 4);
    std::memcpy(msg.req.id.idiag_dst, dst + 12, 4);
  } else {
    std::memcpy(msg.req.id.idiag_src, src, 16);
    std::memcpy(msg.req.id.idiag_dst, dst, 16);
  }
  msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(fd_, &msg, sizeof msg, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
    return DiagResult::kError;
  alignas(nlmsghdr) uint8_t buf[8192];
  for (;;) {
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return DiagResult::kError;
    }
    int len = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_seq != seq_) continue;                              // a late reply to an earlier, timed-out request
      if (h->nlmsg_type == NLMSG_ERROR) return DiagResult::kNotFound;  // -ENOENT: no such socket
      if (h->nlmsg_type == NLMSG_DONE) return DiagResult::kNotFound;
      if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) continue;
      const auto* m = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
      if (m->idiag_inode == 0) return DiagResult::kNotFound;
      out->inode = m->idiag_inode;
      out->uid = m->idiag_uid;
      return DiagResult::kFound;
    }
  }
}

}  // namespace vigil
