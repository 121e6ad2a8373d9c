#ifndef LIVELOG_CNATS_SHIM_H
#define LIVELOG_CNATS_SHIM_H
#include <nats/nats.h>
#endif
