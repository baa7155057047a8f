// sandbox_reach.cpp - a private mount namespace that makes the sandbox's folders reachable for its
// uid under a folder others cannot enter. See sandbox_reach.hpp for why; sandbox.cpp calls it.
//
// Checked on this machine (Debian 12, bubblewrap 0.8.0, kernel 6.18), as root, with the course in
// a folder of mode 0700: bwrap run as uid 61000 fails with "Can't find source path ...:
// Permission denied", and so does `--ro-bind-fd` with a descriptor root opened (bwrap resolves
// it back to the path and looks that up as the user); the same bwrap started in a private mount
// namespace where the closed folder is covered as below runs, and the host sees no change.
//
// Safety of the child's steps: every source is looked up by root, so none may pass through a
// link a sandboxed program could have planted: sources are canonical (no link in them when
// planned), and the child opens them with RESOLVE_NO_SYMLINKS, so a folder swapped for a link
// between the plan and the mount fails the run instead of binding what the link names. The
// overlays are created in the private namespace only, so nothing on the host is written.
#include "sandbox_reach.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define COURSE_HAVE_OPENAT2 1
#endif

namespace grader::internal {
namespace fs = std::filesystem;

fs::path closed_ancestor(const fs::path& canonical) {
  fs::path walk;
  const fs::path parent = canonical.parent_path();
  for (const auto& part : parent) {
    walk /= part;
    struct stat st {};
    if (stat(walk.c_str(), &st) != 0) return {};
    if (S_ISDIR(st.st_mode) && (st.st_mode & S_IXOTH) == 0) return walk;
  }
  return {};
}

Reach plan_reach(const std::vector<fs::path>& paths) {
  struct Need {
    fs::path path, closed;
    bool dir;
  };
  std::vector<Need> needs;
  for (const fs::path& p : paths) {
    const fs::path canon = fs::canonical(p);
    fs::path closed = closed_ancestor(canon);
    if (closed.empty()) continue;
    auto same =
        std::find_if(needs.begin(), needs.end(), [&](const Need& n) { return n.path == canon; });
    if (same != needs.end()) continue;
    needs.push_back({canon, std::move(closed), fs::is_directory(canon)});
  }
  Reach r;
  if (needs.empty()) return r;
  // Parents before children: a bind inside another bind's folder goes on top of it.
  std::stable_sort(needs.begin(), needs.end(), [](const Need& a, const Need& b) {
    return std::distance(a.path.begin(), a.path.end()) <
           std::distance(b.path.begin(), b.path.end());
  });
  std::set<std::string> overlays, made;
  for (const Need& n : needs) {
    overlays.insert(n.closed.string());
    r.sources.push_back(n.path.string());
    fs::path walk = n.closed;
    const fs::path rel = n.path.lexically_relative(n.closed);
    for (auto it = rel.begin(); it != rel.end(); ++it) {
      walk /= *it;
      const bool last = std::next(it) == rel.end();
      if (made.insert(walk.string()).second) {
        r.steps.push_back({last && !n.dir ? Reach::Kind::kFile : Reach::Kind::kDir, walk.string()});
      }
    }
    r.steps.push_back(
        {Reach::Kind::kBind, n.path.string(), static_cast<int>(r.sources.size() - 1)});
  }
  // The topmost closed folder of each path: two of them are never nested (the outer one would
  // be the inner path's topmost too).
  r.overlays.assign(overlays.begin(), overlays.end());
  r.fds.assign(r.sources.size(), -1);
  return r;
}

namespace {

// O_PATH descriptor of a canonical path, refusing any link on the way (see the file's header).
int open_no_links(const char* path) {
#ifdef COURSE_HAVE_OPENAT2
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
#endif
  return open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);  // kernels before 5.6: the last part only
}

// "/proc/self/fd/<fd>" into buf (at least 32 bytes), without allocating.
void fd_path(int fd, char* buf) {
  const char prefix[] = "/proc/self/fd/";
  std::size_t len = 0;
  for (const char* p = prefix; *p != '\0'; ++p) buf[len++] = *p;
  char digits[16];
  int n = 0;
  for (unsigned v = static_cast<unsigned>(fd); n == 0 || v > 0; v /= 10) {
    digits[n++] = static_cast<char>('0' + v % 10);
  }
  while (n > 0) buf[len++] = digits[--n];
  buf[len] = '\0';
}

}  // namespace

int apply_reach(const Reach& reach) {
  if (unshare(CLONE_NEWNS) != 0) return errno;
  // Nothing mounted here may reach the host's namespace (where / is usually shared).
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  for (std::size_t i = 0; i < reach.sources.size(); ++i) {
    reach.fds[i] = open_no_links(reach.sources[i].c_str());
    if (reach.fds[i] < 0) return errno;
  }
  for (const std::string& dir : reach.overlays) {
    if (mount("course-sandbox", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "mode=0755,size=1m") != 0) {
      return errno;
    }
  }
  const mode_t old_mask = umask(0);  // a grader's umask of 077 would close the skeleton again
  int failed = 0;
  for (const Reach::Step& s : reach.steps) {
    if (s.kind == Reach::Kind::kDir) {
      if (mkdir(s.path.c_str(), 0755) != 0 && errno != EEXIST) failed = errno;
    } else if (s.kind == Reach::Kind::kFile) {
      const int fd = open(s.path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
      if (fd < 0) {
        failed = errno;
      } else {
        close(fd);
      }
    } else {
      char source[32];
      fd_path(reach.fds[static_cast<std::size_t>(s.source)], source);
      // The mount's flags stay the source's; bwrap then binds it read-only where it should be.
      if (mount(source, s.path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) failed = errno;
    }
    if (failed != 0) break;
  }
  umask(old_mask);
  for (int& fd : reach.fds) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  return failed;
}

}  // namespace grader::internal
