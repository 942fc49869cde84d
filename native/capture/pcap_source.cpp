// PcapSource: live and offline libpcap handles, typed open errors with actionable messages.
#include "capture/pcap_source.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vigil {

const char* CaptureErrorCode(CaptureError e) {
  switch (e) {
    case CaptureError::kNone:
      return "ERR_CAPTURE_NONE";
    case CaptureError::kPermissionDenied:
      return "ERR_CAPTURE_PERMISSION_DENIED";
    case CaptureError::kNoSuchDevice:
      return "ERR_CAPTURE_NO_SUCH_DEVICE";
    case CaptureError::kFileUnreadable:
      return "ERR_CAPTURE_FILE_UNREADABLE";
    case CaptureError::kFileCorrupt:
      return "ERR_CAPTURE_FILE_CORRUPT";
    case CaptureError::kBadFilter:
      return "ERR_CAPTURE_BAD_FILTER";
    case CaptureError::kDeviceFailure:
      return "ERR_CAPTURE_DEVICE_FAILURE";
    case CaptureError::kReadFailure:
      return "ERR_CAPTURE_READ_FAILURE";
  }
  return "ERR_CAPTURE_UNKNOWN";
}

bool ListDevices(std::vector<DeviceInfo>* out, std::string* error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_if_t* devs = nullptr;
  if (pcap_findalldevs(&devs, errbuf) != 0) {
    *error = errbuf;
    return false;
  }
  for (pcap_if_t* d = devs; d != nullptr; d = d->next) {
    DeviceInfo info;
    info.name = d->name;
    if (d->description != nullptr) info.description = d->description;
    info.loopback = (d->flags & PCAP_IF_LOOPBACK) != 0;
    info.up = (d->flags & PCAP_IF_UP) != 0;
    info.running = (d->flags & PCAP_IF_RUNNING) != 0;
    info.wireless = (d->flags & PCAP_IF_WIRELESS) != 0;
    for (pcap_addr_t* a = d->addresses; a != nullptr; a = a->next) {
      if (a->addr == nullptr) continue;
      char text[INET6_ADDRSTRLEN] = {0};
      if (a->addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->addr)->sin_addr, text, sizeof(text));
      } else if (a->addr->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->addr)->sin6_addr, text, sizeof(text));
      } else {
        continue;
      }
      info.addresses.emplace_back(text);
    }
    out->push_back(std::move(info));
  }
  pcap_freealldevs(devs);
  return true;
}

PcapSource::~PcapSource() { Close(); }

void PcapSource::Close() {
  if (handle_ != nullptr) {
    pcap_close(handle_);
    handle_ = nullptr;
  }
  if (wake_fd_ >= 0) {
    close(wake_fd_);
    wake_fd_ = -1;
  }
  select_fd_ = -1;
  classic_ = false;
}

CaptureError PcapSource::Fail(CaptureError e, std::string message) {
  error_ = e;
  message_ = std::move(message);
  Close();
  return e;
}

CaptureError PcapSource::ApplyFilter(const std::string& filter, uint32_t netmask) {
  if (filter.empty()) return CaptureError::kNone;
  bpf_program prog;
  if (pcap_compile(handle_, &prog, filter.c_str(), 1, netmask) != 0) {
    return Fail(CaptureError::kBadFilter,
                "invalid BPF filter '" + filter + "': " + pcap_geterr(handle_) + " (see `man pcap-filter`)");
  }
  const int rc = pcap_setfilter(handle_, &prog);
  pcap_freecode(&prog);
  if (rc != 0)
    return Fail(CaptureError::kBadFilter, "cannot apply BPF filter '" + filter + "': " + pcap_geterr(handle_));
  return CaptureError::kNone;
}

CaptureError PcapSource::OpenLive(const LiveOptions& o, const std::string& filter) {
  Close();
  live_ = true;
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  std::string device = o.device;
  if (device.empty()) {
    pcap_if_t* devs = nullptr;
    if (pcap_findalldevs(&devs, errbuf) == 0 && devs != nullptr) device = devs->name;
    if (devs != nullptr) pcap_freealldevs(devs);
    if (device.empty())
      return Fail(CaptureError::kNoSuchDevice,
                  "no capture device found; pass an interface name (see `vigil interfaces`)");
  }
  name_ = device;
  handle_ = pcap_create(device.c_str(), errbuf);
  if (handle_ == nullptr)
    return Fail(CaptureError::kDeviceFailure, std::string("cannot open ") + device + ": " + errbuf);
  pcap_set_snaplen(handle_, o.snaplen > 0 ? o.snaplen : 262144);
  pcap_set_promisc(handle_, o.promiscuous ? 1 : 0);
  pcap_set_timeout(handle_, o.timeout_ms > 0 ? o.timeout_ms : 100);
  if (o.buffer_size > 0) pcap_set_buffer_size(handle_, o.buffer_size);
  pcap_set_immediate_mode(handle_, o.immediate ? 1 : 0);
  nano_ = pcap_set_tstamp_precision(handle_, PCAP_TSTAMP_PRECISION_NANO) == 0;
  const int rc = pcap_activate(handle_);
  if (rc < 0) {
    const std::string detail = pcap_geterr(handle_);
    switch (rc) {
      case PCAP_ERROR_PERM_DENIED:
        return Fail(
            CaptureError::kPermissionDenied,
            "permission denied capturing on " + device +
                ": run as root or grant CAP_NET_RAW, e.g. `sudo setcap cap_net_raw,cap_net_admin=eip $(which node)`");
      case PCAP_ERROR_NO_SUCH_DEVICE:
        return Fail(CaptureError::kNoSuchDevice,
                    "no such capture device '" + device + "'; list devices with `vigil interfaces`");
      default:
        if (errno == EPERM || errno == EACCES || detail.find("ermission") != std::string::npos) {
          return Fail(
              CaptureError::kPermissionDenied,
              "permission denied capturing on " + device +
                  ": run as root or grant CAP_NET_RAW, e.g. `sudo setcap cap_net_raw,cap_net_admin=eip $(which node)`");
        }
        return Fail(CaptureError::kDeviceFailure, "cannot capture on " + device + ": " + pcap_statustostr(rc) +
                                                      (detail.empty() ? "" : " (" + detail + ")"));
    }
  }
  if (nano_) nano_ = pcap_get_tstamp_precision(handle_) == PCAP_TSTAMP_PRECISION_NANO;
  ts_digits_ = nano_ ? 9 : 6;
  link_type_ = pcap_datalink(handle_);
  // libpcap's read timeout does not fire on a quiet interface (it keeps polling internally), so read in
  // non-blocking mode and wait in our own poll() with the timeout, plus an eventfd that Break() signals.
  timeout_ms_ = o.timeout_ms > 0 ? o.timeout_ms : 100;
  select_fd_ = pcap_get_selectable_fd(handle_);
  if (select_fd_ < 0 || pcap_setnonblock(handle_, 1, errbuf) != 0) {
    return Fail(CaptureError::kDeviceFailure, "cannot poll capture device " + device + ": " + errbuf);
  }
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Fail(CaptureError::kDeviceFailure, std::string("eventfd: ") + std::strerror(errno));
  bpf_u_int32 net = 0, mask = PCAP_NETMASK_UNKNOWN;
  if (pcap_lookupnet(device.c_str(), &net, &mask, errbuf) != 0) mask = PCAP_NETMASK_UNKNOWN;
  const CaptureError fe = ApplyFilter(filter, mask);
  if (fe != CaptureError::kNone) return fe;
  error_ = CaptureError::kNone;
  return CaptureError::kNone;
}

CaptureError PcapSource::OpenFile(const std::string& path, const std::string& filter) {
  Close();
  live_ = false;
  name_ = path;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    return Fail(CaptureError::kFileUnreadable, "cannot read capture file " + path + ": " + std::strerror(err) +
                                                   (err == EACCES ? " (check its permissions)" : " (check the path)"));
  }
  uint8_t head[24] = {0};
  const size_t got = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  uint32_t m = 0;
  std::memcpy(&m, head, 4);
  // pcap magic: a1b2c3d4 (µs) / a1b23c4d (ns), either byte order; pcapng section header 0a0d0d0a.
  const bool pcap_us = m == 0xa1b2c3d4u || m == 0xd4c3b2a1u;
  const bool pcap_ns = m == 0xa1b23c4du || m == 0x4d3cb2a1u;
  const bool pcapng = m == 0x0a0d0d0au;
  if (got < 4 || !(pcap_us || pcap_ns || pcapng)) {
    return Fail(CaptureError::kFileUnreadable,
                "cannot read " + path + ": not a pcap or pcapng capture file (" +
                    (got < 4 ? "file is shorter than a capture header" : "unknown magic number") + ")");
  }
  classic_ = false;
  if ((pcap_us || pcap_ns) && got == sizeof(head) && filter.empty()) {
    const bool swapped = m == 0xd4c3b2a1u || m == 0x4d3cb2a1u;
    auto u16 = [&](size_t off) {
      const uint16_t v = static_cast<uint16_t>(head[off] | (head[off + 1] << 8));
      return swapped ? static_cast<uint16_t>((v >> 8) | (v << 8)) : v;
    };
    uint32_t snaplen = 0;
    std::memcpy(&snaplen, head + 16, 4);
    if (swapped) snaplen = __builtin_bswap32(snaplen);
    if (u16(4) == 2 && u16(6) == 4) {
      classic_ = true;
      layout_.path = path;
      layout_.swapped = swapped;
      layout_.nanos = pcap_ns;
      // libpcap reads records up to its own maximum (262144 for the link types we decode) and truncates records
      // above the file's snaplen: the direct reader leaves anything above the smaller of the two to libpcap.
      layout_.snaplen = snaplen == 0 || snaplen > 262144 ? 262144 : snaplen;
      layout_.first_record = sizeof(head);
    }
  }
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  handle_ = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (handle_ == nullptr) {
    return Fail(CaptureError::kFileCorrupt, "cannot read capture file " + path + ": " + errbuf +
                                                " (the file is damaged or uses a variant libpcap cannot read; "
                                                "try converting it with `editcap -F pcap`)");
  }
  nano_ = true;
  ts_digits_ = pcap_us ? 6 : 9;
  link_type_ = pcap_datalink(handle_);
  const CaptureError fe = ApplyFilter(filter, PCAP_NETMASK_UNKNOWN);
  if (fe != CaptureError::kNone) return fe;
  error_ = CaptureError::kNone;
  return CaptureError::kNone;
}

ReadResult PcapSource::Next(RawPacket* out) {
  if (handle_ == nullptr) return ReadResult::kEnd;
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc = pcap_next_ex(handle_, &hdr, &data);
  if (rc == 0 && live_) {
    // Nothing buffered: wait for the device, a Break(), or the timeout.
    pollfd fds[2] = {{select_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const int n = poll(fds, 2, timeout_ms_);
    if (n > 0 && (fds[1].revents & POLLIN) != 0) {
      uint64_t drained = 0;
      if (read(wake_fd_, &drained, sizeof(drained)) < 0) drained = 0;
      return ReadResult::kBreak;
    }
    if (n <= 0) return ReadResult::kTimeout;
    rc = pcap_next_ex(handle_, &hdr, &data);
  }
  if (rc == 1) {
    const int64_t frac = static_cast<int64_t>(hdr->ts.tv_usec);
    out->ts_ns = static_cast<int64_t>(hdr->ts.tv_sec) * 1000000000LL + (nano_ ? frac : frac * 1000);
    out->caplen = hdr->caplen;
    out->wirelen = hdr->len;
    out->data = data;
    return ReadResult::kPacket;
  }
  if (rc == 0) return ReadResult::kTimeout;
  if (rc == PCAP_ERROR_BREAK) return live_ ? ReadResult::kBreak : ReadResult::kEnd;
  error_ = CaptureError::kReadFailure;
  if (live_) {
    message_ = "capture on " + name_ + " failed: " + pcap_geterr(handle_) + " (is the interface still up?)";
  } else {
    message_ = "cannot read capture file " + name_ + ": " + pcap_geterr(handle_) +
               " (the file is truncated or damaged; tshark/editcap may still read it: `editcap -F pcap IN OUT`)";
  }
  return ReadResult::kError;
}

bool PcapSource::classic_layout(ClassicFileLayout* out) const {
  if (handle_ == nullptr || live_ || !classic_) return false;
  *out = layout_;
  return true;
}

std::FILE* PcapSource::offline_file() const { return handle_ != nullptr && !live_ ? pcap_file(handle_) : nullptr; }

void PcapSource::Break() {
  if (handle_ != nullptr) pcap_breakloop(handle_);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof(one)) < 0) return;  // counter saturated: a wake-up is pending anyway
  }
}

PcapCounters PcapSource::Stats() {
  PcapCounters c;
  if (handle_ == nullptr || !live_) return c;
  pcap_stat st;
  if (pcap_stats(handle_, &st) == 0) {
    c.received = st.ps_recv;
    c.dropped = st.ps_drop;
    c.if_dropped = st.ps_ifdrop;
  }
  return c;
}

}  // namespace vigil
