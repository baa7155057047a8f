// sandbox_reach.hpp - making the folders a sandbox needs reachable for its uid when they lie
// under a folder other users cannot enter (a clone in /root or in a `mktemp -d` folder, mode 700,
// graded as root). Internal to sandbox.cpp.
//
// As root the sandbox runs as another uid (sandbox.cpp says why), and bwrap, started as that uid,
// looks its bind sources up as that uid: a folder on the way without o+x stops it ("Can't find
// source path ...: Permission denied"). Instead of asking anyone to open that folder, the forked
// child (still root) makes a private mount namespace in which every topmost closed folder is
// covered by a small tmpfs that holds only the path down to each needed folder (mode 0755), with
// the needed folder itself bind-mounted there. Nothing of the host changes: no permission, no
// file, and no mount outside that namespace, which ends with the sandbox. bwrap (or, under uid
// isolation, the program) then finds the same paths, and nothing else of the closed folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace grader::internal {

/// What the forked child does before it drops root, planned before fork (no allocation after).
struct Reach {
  enum class Kind { kDir, kFile, kBind };
  struct Step {
    Kind kind = Kind::kDir;
    std::string path;  ///< the folder or file to create, or the bind's target
    int source = -1;   ///< kBind: index into sources
  };
  /// Topmost folders on the way to a needed path that others cannot enter: a tmpfs over each.
  std::vector<std::string> overlays;
  /// Canonical needed paths, opened (O_PATH) before the overlays hide them.
  std::vector<std::string> sources;
  /// In order: the overlays' skeleton folders, each needed path's mount point and its bind.
  std::vector<Step> steps;
  /// The sources' descriptors, filled in the forked child (its own copy of this memory), sized
  /// here so that the child allocates nothing.
  mutable std::vector<int> fds;

  bool empty() const { return overlays.empty(); }
};

/// The first folder on the way to `p` (its proper ancestors, `p` excluded) that others may not
/// enter (no o+x), or an empty path. Lexical on the canonical path.
std::filesystem::path closed_ancestor(const std::filesystem::path& canonical);

/// Plans how the paths become reachable: empty when every one is reachable already. Paths must
/// exist. Binds keep their mounts' flags: bwrap makes its read-only binds read-only itself.
Reach plan_reach(const std::vector<std::filesystem::path>& paths);

/// In the forked child, as root: a private mount namespace, the overlays and binds of `reach`.
/// Async-signal-safe. Returns 0, or the errno of the step that failed.
int apply_reach(const Reach& reach);

}  // namespace grader::internal
