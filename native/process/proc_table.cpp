// ProcTable: socket inode -> pid from /proc/<pid>/fd, and process descriptions from /proc/<pid>/*.
#include "process/proc_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vigil {

namespace {

// A getdents64 record (linux_dirent64; glibc declares no type for the raw syscall).
struct Dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

bool IsHex(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Reads a small file whole (at most `limit` bytes); false when it cannot be opened.
bool ReadSmallFile(const std::string& path, std::string* out, size_t limit = 4096) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buf[1024];
  while (out->size() < limit) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (out->size() > limit) out->resize(limit);
  return true;
}

// The container id of one cgroup path component, or "" (docker-<id>.scope, libpod-<id>.scope, crio-<id>.scope,
// cri-containerd-<id>.scope, or a bare 64-hex-digit component as cgroupfs drivers name it).
std::string ContainerOf(const std::string& part) {
  static const char* const kPrefixes[] = {"docker-", "libpod-", "crio-", "cri-containerd-"};
  if (part.size() == 64 && IsHex(part)) return part;
  if (!EndsWith(part, ".scope")) return "";
  for (const char* p : kPrefixes) {
    const size_t n = std::strlen(p);
    if (part.compare(0, n, p) != 0) continue;
    const std::string id = part.substr(n, part.size() - n - 6);
    if (id.size() >= 12 && IsHex(id)) return id;
  }
  return "";
}

}  // namespace

void ParseCgroup(const std::string& text, std::string* unit, std::string* container) {
  unit->clear();
  container->clear();
  // Prefer the unified hierarchy's line ("0::/path"), else the systemd named hierarchy's.
  std::string path;
  bool have_v2 = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t c1 = line.find(':');
    const size_t c2 = c1 == std::string::npos ? std::string::npos : line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    const std::string hier = line.substr(0, c1);
    const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1);
    if (hier == "0" && controllers.empty()) {
      path = line.substr(c2 + 1);
      have_v2 = true;
    } else if (!have_v2 && controllers == "name=systemd") {
      path = line.substr(c2 + 1);
    }
  }
  size_t p = 0;
  while (p < path.size()) {
    size_t q = path.find('/', p);
    if (q == std::string::npos) q = path.size();
    const std::string part = path.substr(p, q - p);
    p = q + 1;
    if (part.empty()) continue;
    const std::string id = ContainerOf(part);
    if (!id.empty()) {
      *container = id;
    } else if (EndsWith(part, ".service") || EndsWith(part, ".scope")) {
      *unit = part;  // the deepest one wins: the most specific unit
    }
  }
}

ProcTable::ProcTable(std::string proc, int64_t listing_ttl_ns)
    : proc_(std::move(proc)), listing_ttl_ns_(listing_ttl_ns) {}

ProcTable::~ProcTable() {
  for (const auto& d : fd_dirs_) close(d.second);
  if (loadavg_fd_ >= 0) close(loadavg_fd_);
}

void ProcTable::List(int64_t now_ns) {
  stats_.listings++;
  listed_ns_ = now_ns;
  DIR* dir = opendir(proc_.c_str());
  if (dir == nullptr) return;
  pids_.clear();
  std::unordered_map<int32_t, PidState> next;
  next.reserve(known_.size() + 16);
  while (dirent* d = readdir(dir)) {
    if (!AllDigits(d->d_name)) continue;
    const int32_t pid = static_cast<int32_t>(std::strtol(d->d_name, nullptr, 10));
    pids_.push_back(pid);
    const auto it = known_.find(pid);
    next.emplace(pid, it == known_.end() ? PidState{} : it->second);
  }
  closedir(dir);
  known_.swap(next);
}

void ProcTable::NewPids(std::vector<int32_t>* out, int64_t now_ns) {
  out->clear();
  // Kept open and read again from the start each time (procfs regenerates it on every read).
  if (loadavg_fd_ < 0) loadavg_fd_ = open((proc_ + "/loadavg").c_str(), O_RDONLY | O_CLOEXEC);
  if (loadavg_fd_ < 0) return;
  char text[128];
  const ssize_t n = pread(loadavg_fd_, text, sizeof text - 1, 0);
  if (n <= 0) return;
  text[n] = '\0';
  const char* sp = std::strrchr(text, ' ');
  if (sp == nullptr) return;
  const int32_t last = static_cast<int32_t>(std::strtol(sp + 1, nullptr, 10));
  if (last <= 0) return;
  const int32_t prev = last_pid_ < 0 || last_pid_ > last ? last - kMaxNewPids : last_pid_;  // first call, or wrapped
  last_pid_ = last;
  for (int32_t pid = last; pid > prev && pid > 0 && last - pid < kMaxNewPids; --pid) {
    out->push_back(pid);
    young_.emplace_back(pid, now_ns);
  }
  size_t drop = 0;
  while (drop < young_.size() && (now_ns - young_[drop].second > kYoungNs || young_.size() - drop > 4 * kMaxNewPids))
    ++drop;
  young_.erase(young_.begin(), young_.begin() + static_cast<std::ptrdiff_t>(drop));
}

int ProcTable::FdDir(int32_t pid) {
  for (const auto& d : fd_dirs_)
    if (d.first == pid) return d.second;
  const std::string path = proc_ + "/" + std::to_string(pid) + "/fd";
  const int dfd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return -1;
  // Kept open for the processes walked most recently (opening and closing the directory cost as much as reading it).
  if (fd_dirs_.size() >= kRecent) {
    close(fd_dirs_.front().second);
    last_fds_.erase(fd_dirs_.front().first);
    fd_dirs_.erase(fd_dirs_.begin());
  }
  fd_dirs_.emplace_back(pid, dfd);
  return dfd;
}

void ProcTable::ForgetFdDir(int32_t pid) {
  last_fds_.erase(pid);
  for (auto it = fd_dirs_.begin(); it != fd_dirs_.end(); ++it) {
    if (it->first != pid) continue;
    close(it->second);
    fd_dirs_.erase(it);
    return;
  }
}

bool ProcTable::ProbeFds(int32_t pid, int dfd, std::unordered_set<uint32_t>* missing) {
  const auto last_it = last_fds_.find(pid);
  if (last_it == last_fds_.end() || last_it->second.empty()) return false;
  std::unordered_map<int, uint32_t>& last = last_it->second;
  // A new descriptor is the lowest number free when it was made (POSIX): one free at the last walk (a gap, or past
  // the highest), or one a closed connection gave back (it held a socket a flow asked about). Lowest first.
  int highest = 0;
  for (const auto& e : last) highest = e.first > highest ? e.first : highest;
  fd_numbers_.clear();
  for (int fd = 0; fd <= highest + kProbePast && fd_numbers_.size() < kProbes; ++fd) {
    const auto it = last.find(fd);
    if (it == last.end() || (it->second != 0 && asked_.count(it->second) != 0)) fd_numbers_.push_back(fd);
  }
  char name[16];
  struct stat st;
  for (const int fd : fd_numbers_) {
    std::snprintf(name, sizeof name, "%d", fd);
    stats_.fds++;
    if (fstatat(dfd, name, &st, 0) != 0) {
      if (errno == ENOENT) last.erase(fd);
      continue;
    }
    const uint32_t inode = S_ISSOCK(st.st_mode) ? static_cast<uint32_t>(st.st_ino) : 0;
    last[fd] = inode;
    if (inode == 0) continue;
    inodes_[inode] = pid;
    if (missing->erase(inode) != 0 && missing->empty()) return true;
  }
  return false;
}

bool ProcTable::WalkFds(int32_t pid, std::unordered_set<uint32_t>* missing) {
  const int dfd = FdDir(pid);
  if (dfd < 0) return false;
  // A process walked before: probe the likely descriptors by number, without reading the directory (that costs as
  // much per entry as reading a link).
  if (ProbeFds(pid, dfd, missing)) return true;
  // Read the directory from its start with getdents64 (no DIR stream: the descriptor is reused by the next walk).
  if (lseek(dfd, 0, SEEK_SET) != 0) {
    ForgetFdDir(pid);
    return false;
  }
  stats_.fd_dirs++;
  fd_numbers_.clear();
  alignas(8) char buf[16384];
  for (;;) {
    const long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
    if (n < 0) {
      ForgetFdDir(pid);  // the process is gone (ENOENT) or the directory is no longer readable
      return false;
    }
    if (n == 0) break;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const Dirent64*>(buf + off);
      if (d->d_name[0] >= '0' && d->d_name[0] <= '9') fd_numbers_.push_back(std::atoi(d->d_name));
      off += d->d_reclen;
    }
  }
  if (fd_numbers_.empty()) {
    ForgetFdDir(pid);  // an exited process's directory reads empty
    return false;
  }
  if (inodes_.size() > kMaxInodes) inodes_.clear();
  // Most likely first: descriptors this process did not have at its last walk, then those that held a socket a flow
  // asked about (connections are short: their numbers are reused first), then other sockets, then what was not a
  // socket (files, pipes, epoll: they rarely turn into one); newest first within each. Stop once all are found.
  std::unordered_map<int, uint32_t>& last = last_fds_[pid];
  auto tier = [&](int fd) {
    const auto it = last.find(fd);
    if (it == last.end()) return 0;
    if (it->second == 0) return 3;
    return asked_.count(it->second) != 0 ? 1 : 2;
  };
  std::sort(fd_numbers_.begin(), fd_numbers_.end(), [&](int a, int b) {
    const int ta = tier(a);
    const int tb = tier(b);
    return ta != tb ? ta < tb : a > b;
  });
  // stat() through the fd link gives the socket's inode directly (what readlink spells "socket:[inode]"), without
  // the kernel formatting a path.
  char name[16];
  struct stat st;
  std::unordered_map<int, uint32_t> now;
  now.reserve(fd_numbers_.size());
  for (const int fd : fd_numbers_) now.emplace(fd, 0);
  for (const auto& [fd, inode] : last) {
    const auto it = now.find(fd);
    if (it != now.end()) it->second = inode;  // unread descriptors keep what they held (a guess for the next walk)
  }
  for (const int fd : fd_numbers_) {
    std::snprintf(name, sizeof name, "%d", fd);
    stats_.fds++;
    if (fstatat(dfd, name, &st, 0) != 0) continue;
    const uint32_t inode = S_ISSOCK(st.st_mode) ? static_cast<uint32_t>(st.st_ino) : 0;
    now[fd] = inode;
    if (inode == 0) continue;
    inodes_[inode] = pid;
    if (missing->erase(inode) != 0 && missing->empty()) break;
  }
  last.swap(now);
  return true;
}

uint32_t ProcTable::PidUid(int32_t pid) {
  auto it = known_.find(pid);
  if (it == known_.end()) return ~0u;
  if (!it->second.uid_known) {
    struct stat st;
    const std::string path = proc_ + "/" + std::to_string(pid);
    it->second.uid = stat(path.c_str(), &st) == 0 ? st.st_uid : ~0u;
    it->second.uid_known = true;
  }
  return it->second.uid;
}

void ProcTable::Touch(int32_t pid) {
  const auto it = std::find(recent_.begin(), recent_.end(), pid);
  if (it != recent_.end()) recent_.erase(it);
  recent_.insert(recent_.begin(), pid);
  if (recent_.size() > kRecent) recent_.pop_back();
}

void ProcTable::Find(std::vector<Want>* wants, int64_t now_ns) {
  size_t missing = 0;
  for (Want& w : *wants) {
    const auto it = inodes_.find(w.inode);
    if (it != inodes_.end()) {
      w.pid = it->second;
      stats_.inode_hits++;
    } else {
      w.pid = 0;
      missing++;
    }
  }
  if (missing == 0) return;
  stats_.walks++;
  for (const Want& w : *wants) {
    if (w.pid != 0) continue;
    if (asked_order_.size() >= kAsked) {
      asked_.erase(asked_order_.front());
      asked_order_.pop_front();
    }
    if (asked_.insert(w.inode).second) asked_order_.push_back(w.inode);
  }
  std::unordered_set<int32_t> visited;
  std::unordered_set<uint32_t> wanted;
  for (const Want& w : *wants)
    if (w.pid == 0) wanted.insert(w.inode);
  // Walks one process (or thread: same fd table); true when every want has been found.
  auto visit = [&](int32_t pid) {
    if (!visited.insert(pid).second) return false;
    if (!WalkFds(pid, &wanted)) return false;
    for (Want& w : *wants) {
      if (w.pid != 0) continue;
      const auto it = inodes_.find(w.inode);
      if (it != inodes_.end() && it->second == pid) {
        w.pid = pid;
        Touch(pid);
        if (--missing == 0) return true;
      }
    }
    return false;
  };
  const std::vector<int32_t> recent = recent_;
  for (const int32_t pid : recent)
    if (visit(pid)) return;
  std::vector<int32_t> fresh_pids;
  NewPids(&fresh_pids, now_ns);
  for (const int32_t pid : fresh_pids)
    if (visit(pid)) return;
  for (auto it = young_.rbegin(); it != young_.rend(); ++it)
    if (visit(it->first)) return;
  if (listed_ns_ < 0 || now_ns - listed_ns_ >= listing_ttl_ns_) List(now_ns);
  std::unordered_set<uint32_t> uids;
  for (const Want& w : *wants)
    if (w.pid == 0) uids.insert(w.uid);
  for (const int32_t pid : pids_)
    if (uids.count(PidUid(pid)) != 0 && visit(pid)) return;
  for (const int32_t pid : pids_)
    if (visit(pid)) return;
}

std::shared_ptr<const ProcessInfo> ProcTable::Info(int32_t pid, int64_t now_ns) {
  const auto it = infos_.find(pid);
  if (it != infos_.end() && now_ns - it->second.read_ns < kInfoTtlNs) return it->second.info;
  std::shared_ptr<const ProcessInfo> info = ReadInfo(pid);
  if (info == nullptr) {
    if (it != infos_.end()) infos_.erase(it);
    return nullptr;
  }
  if (infos_.size() >= kMaxInfos) infos_.clear();
  infos_[pid] = CachedInfo{info, now_ns};
  return info;
}

std::shared_ptr<const ProcessInfo> ProcTable::ReadInfo(int32_t pid) {
  stats_.info_reads++;
  const std::string base = proc_ + "/" + std::to_string(pid) + "/";
  auto info = std::make_shared<ProcessInfo>();
  info->pid = pid;
  if (!ReadSmallFile(base + "comm", &info->name, 64)) return nullptr;
  while (!info->name.empty() && info->name.back() == '\n') info->name.pop_back();
  char exe[4096];
  const ssize_t n = readlink((base + "exe").c_str(), exe, sizeof exe - 1);
  if (n > 0) info->exe.assign(exe, static_cast<size_t>(n));
  std::string status;
  if (ReadSmallFile(base + "status", &status, 16384)) {
    // A thread's id (walked as a new pid): describe its process instead.
    const size_t tg = status.find("\nTgid:");
    const int32_t tgid =
        tg == std::string::npos ? pid : static_cast<int32_t>(std::strtol(status.c_str() + tg + 6, nullptr, 10));
    if (tgid > 0 && tgid != pid) return ReadInfo(tgid);
    const size_t at = status.find("\nUid:");
    if (at != std::string::npos) info->uid = static_cast<uint32_t>(std::strtoul(status.c_str() + at + 5, nullptr, 10));
  }
  info->user = UserName(info->uid);
  std::string cgroup;
  if (ReadSmallFile(base + "cgroup", &cgroup, 16384)) ParseCgroup(cgroup, &info->unit, &info->container);
  return info;
}

std::string ProcTable::UserName(uint32_t uid) {
  const auto it = users_.find(uid);
  if (it != users_.end()) return it->second;
  passwd pw;
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  std::string name;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr && found->pw_name != nullptr)
    name = found->pw_name;
  if (users_.size() < 1024) users_.emplace(uid, name);
  return name;
}

}  // namespace vigil
