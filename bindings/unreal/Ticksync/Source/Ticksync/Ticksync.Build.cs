// Ticksync.Build.cs - links the prebuilt libticksync (from this repository's
// `cmake --install`) into the module, and puts ticksync.h and ticksync.hpp
// on its include path. Put the install's include/ and lib/ under
// ThirdParty/ticksync/ beside this plugin's Source folder.
using System.IO;
using UnrealBuildTool;

public class Ticksync : ModuleRules
{
    public Ticksync(ReadOnlyTargetRules Target) : base(Target)
    {
        PCHUsage = PCHUsageMode.UseExplicitOrSharedPCHs;
        PublicDependencyModuleNames.AddRange(new string[] { "Core" });
        string ThirdParty = Path.Combine(ModuleDirectory, "..", "..", "ThirdParty", "ticksync");
        PublicIncludePaths.Add(Path.Combine(ThirdParty, "include"));
        if (Target.Platform == UnrealTargetPlatform.Win64)
        {
            PublicAdditionalLibraries.Add(Path.Combine(ThirdParty, "lib", "ticksync.lib"));
            RuntimeDependencies.Add("$(BinaryOutputDir)/ticksync.dll", Path.Combine(ThirdParty, "bin", "ticksync.dll"));
            PublicDelayLoadDLLs.Add("ticksync.dll");
        }
        else
        {
            // the static library and what it needs (Linux, macOS, Android, iOS)
            PublicAdditionalLibraries.Add(Path.Combine(ThirdParty, "lib", "libticksync.a"));
            PublicAdditionalLibraries.Add(Path.Combine(ThirdParty, "lib", "libmsgpackc.a"));
            PublicAdditionalLibraries.Add(Path.Combine(ThirdParty, "lib", "libsodium.a"));
        }
    }
}
