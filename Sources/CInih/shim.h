// libinih (Debian: libinih-dev): the INI parser behind lprojd.conf.
#include <ini.h>
