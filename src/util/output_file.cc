#include "util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {
namespace {

std::string FileTypeOf(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return PathErrorText(EISDIR);
  const char* kind = S_ISFIFO(mode)   ? "a FIFO"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "not a file";
  return std::string("not a regular file (") + kind + ")";
}

/// The folder a new file at `path` goes into ("." for a bare name).
std::string FolderOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

std::string NotARegularFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return PathErrorText(errno);
  return FileTypeOf(st.st_mode);
}

std::string OutputPathProblem(const std::string& path) {
  if (!path.empty() && path.back() == '/') return "names a directory (ends in '/'); expected a file path";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return FileTypeOf(st.st_mode);
  if (errno != ENOENT) return PathErrorText(errno);
  struct stat lst;
  if (::lstat(path.c_str(), &lst) == 0) return "a dangling symbolic link";  // writing would create its target
  const std::string folder = FolderOf(path);
  if (::stat(folder.c_str(), &st) != 0)
    return "its folder " + QuoteName(folder, 0) + " " +
           (errno == ENOENT ? std::string("does not exist") : "cannot be reached: " + PathErrorText(errno));
  if (!S_ISDIR(st.st_mode)) return "its folder " + QuoteName(folder, 0) + " is not a directory";
  return "";
}

std::string OutputDirProblem(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  if (ec) return ec.message();
  // The path itself, else its nearest existing ancestor, must be a folder.
  for (; !p.empty(); p = p.parent_path()) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return "";
      const std::string kind = FileTypeOf(st.st_mode);
      const std::string what = kind.empty() ? "a regular file" : kind;
      return p.string() == std::filesystem::absolute(path, ec).string()
                 ? "not a directory (" + what + ")"
                 : "its parent " + QuoteName(p.string(), 0) + " is not a directory (" + what + ")";
    }
    if (errno != ENOENT) return PathErrorText(errno);
    if (p == p.parent_path()) break;
  }
  return "";
}

bool WriteOutputFile(const std::string& path, const std::string& text, std::string* problem) {
  // O_NONBLOCK: a FIFO put there since the up-front check opens without a
  // reader (ENXIO) or is refused below, never waited on.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0) {
    *problem = errno == ENXIO ? FileTypeOf(S_IFIFO) : PathErrorText(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *problem = FileTypeOf(st.st_mode);
    ::close(fd);
    return false;
  }
  // Regular: writes block as usual from here (O_NONBLOCK means nothing to a file).
  auto fail = [&](int error) {
    *problem = std::strerror(error);
    ::close(fd);
    ::unlink(path.c_str());  // no empty or partial report or reproducer stays behind
    return false;
  };
  if (::ftruncate(fd, 0) != 0) return fail(errno);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    *problem = std::strerror(error);
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

namespace {

/// The temporary files being written (their paths, NUL-terminated), so that
/// a second signal's immediate exit removes them: a few slots, each taken
/// by a compare-and-swap, read by RemoveTemporaryFiles in a signal handler.
constexpr int kTemporarySlots = 8;
char g_temporary[kTemporarySlots][4096];
std::atomic<bool> g_temporary_busy[kTemporarySlots];
std::atomic<bool> g_temporary_live[kTemporarySlots];

int TakeSlot(const std::string& path) {
  if (path.size() >= sizeof g_temporary[0]) return -1;
  for (int i = 0; i < kTemporarySlots; ++i) {
    bool free = false;
    if (!g_temporary_busy[i].compare_exchange_strong(free, true)) continue;
    std::memcpy(g_temporary[i], path.c_str(), path.size() + 1);
    g_temporary_live[i] = true;
    return i;
  }
  return -1;
}

void ReleaseSlot(int i) {
  if (i < 0) return;
  g_temporary_live[i] = false;
  g_temporary_busy[i] = false;
}

/// A name beside `path` for its temporary file: NAME.tmp-PID, NAME cut so
/// that the whole name fits the file system's limit on a name (NAME_MAX).
std::string TemporaryBeside(const std::string& path) {
  const std::string suffix = ".tmp-" + std::to_string(::getpid());
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  constexpr size_t kNameMax = 255;
  if (name.size() + suffix.size() > kNameMax) name.resize(kNameMax - suffix.size());
  return folder + name + suffix;
}

}  // namespace

void RemoveTemporaryFiles() {
  for (int i = 0; i < kTemporarySlots; ++i)
    if (g_temporary_live[i]) ::unlink(g_temporary[i]);  // async-signal-safe
}

bool WriteOutputFileAtomically(const std::string& path, const std::string& text, std::string* problem) {
  // A regular file beside it, renamed over it: a reader (or a kill) sees the
  // old file or the new one, never half of one. A path that is not a
  // regular file (a FIFO, a device) is written as WriteOutputFile does.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return WriteOutputFile(path, text, problem);
  // A symbolic link: its target is the report (renaming over the link would
  // replace the link and leave the target's old report).
  std::string target = path;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
    if (!ec) target = resolved.string();
  }
  const std::string temporary = TemporaryBeside(target);
  const int slot = TakeSlot(temporary);
  if (!WriteOutputFile(temporary, text, problem)) {
    ReleaseSlot(slot);
    return false;
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    *problem = std::strerror(errno);
    ::unlink(temporary.c_str());
    ReleaseSlot(slot);
    return false;
  }
  ReleaseSlot(slot);
  return true;
}

}  // namespace slotguard
