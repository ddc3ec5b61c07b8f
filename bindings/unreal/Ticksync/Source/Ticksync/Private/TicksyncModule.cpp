#include "TicksyncModule.h"

IMPLEMENT_MODULE(FTicksyncModule, Ticksync)
