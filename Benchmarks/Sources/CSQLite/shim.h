#ifndef LIVELOG_CSQLITE_SHIM_H
#define LIVELOG_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
