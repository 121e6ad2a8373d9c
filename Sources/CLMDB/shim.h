#ifndef LIVELOG_CLMDB_SHIM_H
#define LIVELOG_CLMDB_SHIM_H
#include <lmdb.h>
#endif
