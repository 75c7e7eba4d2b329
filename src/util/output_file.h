// The files a run writes (reports, reproducers, an imported scenario): what
// a path must be before anything runs, and the one way they are written.
//
// Before anything runs a path is refused (exit 2) when it is the wrong kind
// of thing: a directory, a FIFO, a device or a socket (writing a FIFO waits
// for a reader forever; a device never fills), or a new file whose folder
// does not exist. What only the write itself can tell (permission, a full
// disk, an I/O error) is the environment's problem (exit 3), named by its
// errno text.
#ifndef SLOTGUARD_UTIL_OUTPUT_FILE_H_
#define SLOTGUARD_UTIL_OUTPUT_FILE_H_

#include <string>

namespace slotguard {

/// What a stat()ed path is, for messages: "" for a regular file, else "is a
/// directory", "not a regular file (a FIFO)", "not a regular file (a
/// character device)", ... or the errno text of a path that cannot be
/// stat()ed ("no such file or directory"). Never opens it: a FIFO cannot
/// block.
std::string NotARegularFile(const std::string& path);

/// "" when the run may write `path`: an existing regular file (written
/// over) or a new name in an existing folder. Else the problem, e.g. "is a
/// directory", "not a regular file (a FIFO)", "its folder 'out' does not
/// exist".
std::string OutputPathProblem(const std::string& path);

/// "" when the run may fill the folder `path` (fuzz --out): an existing
/// folder, or one whose nearest existing ancestor is a folder (it is
/// created later). Else the problem ("not a directory (a regular file)").
std::string OutputDirProblem(const std::string& path);

/// Writes `text` to `path`, a regular file or a new one: opened without
/// blocking (a FIFO that appeared since the check is refused, not waited
/// on). False with *problem the reason ("No space left on device",
/// "Input/output error", "not a regular file (a FIFO)"); what a failed
/// write left behind is removed, so no empty or partial file stays.
bool WriteOutputFile(const std::string& path, const std::string& text, std::string* problem);

/// The same through a file beside `path` renamed over it, so that nothing
/// ever sees a half-written file (a report rewritten while the run goes on).
/// The file beside it is NAME.tmp-PID, NAME cut to fit the file system's
/// 255-byte name limit. A `path` that is a symbolic link writes its target
/// (the link stays a link).
bool WriteOutputFileAtomically(const std::string& path, const std::string& text, std::string* problem);

/// Removes the temporary files WriteOutputFileAtomically is writing now:
/// async-signal-safe, for a signal handler that exits at once
/// (util/stop_signals.h's second signal), so that no empty or partial
/// NAME.tmp-PID stays behind.
void RemoveTemporaryFiles();

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_OUTPUT_FILE_H_
