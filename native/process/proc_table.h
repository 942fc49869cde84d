// ProcTable: which process holds a socket inode, from /proc/<pid>/fd ("socket:[inode]"), and what that process is
// (/proc/<pid>/comm, exe, status, cgroup). Caches both. Linux only. The walk is the one ss -p (iproute2 misc/ss.c
// user_ent_hash_build) and OpenSnitch (daemon/procmon/find.go, daemon/procmon/parse.go) do; the order of the walk
// and the caching are ours.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "process/process_info.h"

namespace vigil {

struct ProcTableStats {
  uint64_t walks = 0;       // passes over /proc/<pid>/fd directories
  uint64_t listings = 0;    // reads of the /proc directory
  uint64_t fd_dirs = 0;     // /proc/<pid>/fd directories read
  uint64_t fds = 0;         // fd links read
  uint64_t inode_hits = 0;  // inodes found in the cache without a walk
  uint64_t info_reads = 0;  // processes described (comm, exe, status, cgroup read)
};

// Single-threaded (the resolver thread).
class ProcTable {
 public:
  // `proc` is the procfs mount ("/proc"); `listing_ttl_ns` bounds how often /proc itself is listed (costly: the
  // kernel fills a dentry per process). Processes started since are found without it, from /proc/loadavg's last pid.
  explicit ProcTable(std::string proc = "/proc", int64_t listing_ttl_ns = 1'000'000'000);
  ~ProcTable();
  ProcTable(const ProcTable&) = delete;
  ProcTable& operator=(const ProcTable&) = delete;

  // One inode to find, with the socket's uid (processes of that uid are walked first). pid is set when found.
  struct Want {
    uint32_t inode = 0;
    uint32_t uid = 0;
    int32_t pid = 0;
  };
  // Finds the pid of each want: the cache first, then one walk over the fd directories, in this order: processes
  // that owned a recent match, processes created since the last walk (pids up to /proc/loadavg's last one),
  // processes created in the last seconds, processes of a wanted uid, the rest. The walk stops when every want is
  // found. A pid found may be a thread's id (Info maps it to its process). `now_ns` is a monotonic clock.
  void Find(std::vector<Want>* wants, int64_t now_ns);

  // The pid the cache holds for `inode` (no walk), or 0.
  int32_t CachedPid(uint32_t inode) {
    const auto it = inodes_.find(inode);
    if (it == inodes_.end()) return 0;
    stats_.inode_hits++;
    return it->second;
  }

  // The description of `pid` (cached for `info_ttl_ns`, then read again, since a process may exec); nullptr when
  // the process is gone.
  std::shared_ptr<const ProcessInfo> Info(int32_t pid, int64_t now_ns);

  const ProcTableStats& stats() const { return stats_; }

 private:
  struct PidState {
    uint32_t uid = 0;  // owner of /proc/<pid> (the effective uid)
    bool uid_known = false;
  };
  struct CachedInfo {
    std::shared_ptr<const ProcessInfo> info;
    int64_t read_ns = 0;
  };
  void List(int64_t now_ns);
  // Pids created since the last call, newest first (at most kMaxNewPids), from /proc/loadavg's last pid; each is
  // also remembered as young for kYoungNs.
  void NewPids(std::vector<int32_t>* out, int64_t now_ns);
  // Reads the fd links of `pid` (newest descriptor first), recording the socket inodes read in the cache and erasing
  // them from `missing`; stops when `missing` is empty. Returns false when the process is gone.
  bool WalkFds(int32_t pid, std::unordered_set<uint32_t>* missing);
  // Probes the descriptors of a process walked before that most likely hold a new socket (by number, no directory
  // read); true when `missing` became empty.
  bool ProbeFds(int32_t pid, int dfd, std::unordered_set<uint32_t>* missing);
  // The open /proc/<pid>/fd directory of `pid` (kept for the kRecent processes walked last), or -1.
  int FdDir(int32_t pid);
  void ForgetFdDir(int32_t pid);
  uint32_t PidUid(int32_t pid);
  std::shared_ptr<const ProcessInfo> ReadInfo(int32_t pid);
  std::string UserName(uint32_t uid);
  void Touch(int32_t pid);

  std::string proc_;
  int64_t listing_ttl_ns_;
  int64_t listed_ns_ = -1;
  std::vector<int32_t> pids_;                     // the last listing
  std::unordered_map<int32_t, PidState> known_;   // pids of the last listing
  std::unordered_map<uint32_t, int32_t> inodes_;  // socket inode -> pid, from walks
  std::vector<int> fd_numbers_;                   // scratch of WalkFds
  std::vector<std::pair<int32_t, int>> fd_dirs_;  // (pid, open /proc/<pid>/fd), oldest first
  // Per process with an open fd directory: each descriptor's socket inode at the last walk (0: not a socket).
  std::unordered_map<int32_t, std::unordered_map<int, uint32_t>> last_fds_;
  std::unordered_set<uint32_t> asked_;  // socket inodes walks looked for (at most kAsked, oldest dropped first)
  std::deque<uint32_t> asked_order_;
  int loadavg_fd_ = -1;                             // /proc/loadavg, kept open
  int32_t last_pid_ = -1;                           // /proc/loadavg's last pid at the previous NewPids
  std::vector<std::pair<int32_t, int64_t>> young_;  // (pid, seen) of recently created pids, oldest first
  std::vector<int32_t> recent_;                     // pids of recent matches, most recent first (at most kRecent)
  std::unordered_map<int32_t, CachedInfo> infos_;
  std::unordered_map<uint32_t, std::string> users_;
  ProcTableStats stats_;
  static constexpr size_t kRecent = 16;
  static constexpr size_t kMaxInodes = 1u << 17;  // the cache is dropped whole past this (stale sockets pile up)
  static constexpr size_t kMaxInfos = 4096;
  static constexpr int32_t kMaxNewPids = 256;
  static constexpr size_t kAsked = 4096;
  static constexpr size_t kProbes = 64;  // free numbers probed per process and walk
  static constexpr int kProbePast = 8;   // numbers past the highest descriptor probed
  static constexpr int64_t kYoungNs = 5'000'000'000;
  static constexpr int64_t kInfoTtlNs = 2'000'000'000;
};

// The systemd unit (deepest path component ending in .service or .scope that is not a container's scope) and the
// container id (docker-, libpod-, crio-, cri-containerd- scopes; /docker/<id>, /kubepods/.../<id>) named by the
// contents of /proc/<pid>/cgroup. Exposed for tests.
void ParseCgroup(const std::string& text, std::string* unit, std::string* container);

}  // namespace vigil
