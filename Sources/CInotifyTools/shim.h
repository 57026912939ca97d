// libinotifytools (Debian: libinotifytools0-dev) ships no pkg-config file;
// this module map names its header and library directly.
#include <inotifytools/inotifytools.h>
#include <inotifytools/inotify.h>
