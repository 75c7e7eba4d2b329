#include "util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {
namespace {

std::string KindOf(mode_t mode) {
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
  return KindOf(st.st_mode);
}

std::string OutputPathProblem(const std::string& path) {
  if (!path.empty() && path.back() == '/') return "names a directory (ends in '/'); expected a file path";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return KindOf(st.st_mode);
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
      const std::string kind = KindOf(st.st_mode);
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
    *problem = errno == ENXIO ? KindOf(S_IFIFO) : PathErrorText(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *problem = KindOf(st.st_mode);
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

bool WriteOutputFileAtomically(const std::string& path, const std::string& text, std::string* problem) {
  // A regular file beside it, renamed over it: a reader (or a kill) sees the
  // old file or the new one, never half of one. A path that is not a
  // regular file (a FIFO, a device) is written as WriteOutputFile does.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return WriteOutputFile(path, text, problem);
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  if (!WriteOutputFile(temporary, text, problem)) return false;
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    *problem = std::strerror(errno);
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

}  // namespace slotguard
