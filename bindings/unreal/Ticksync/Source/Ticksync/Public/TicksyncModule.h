// TicksyncModule.h - the plugin's module. Game code includes
// "ticksync.hpp" and owns a ticksync::Client (for example in its
// GameInstance subsystem), calling Run() from Tick.
#pragma once

#include "Modules/ModuleManager.h"

class FTicksyncModule : public IModuleInterface
{
};
