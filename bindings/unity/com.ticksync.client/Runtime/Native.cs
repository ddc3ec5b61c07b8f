// Native.cs - the C API of ticksync.h, as P/Invoke declarations. Every
// managed type in this package is a thin layer over these: there is no
// second estimator in C#.
//
// The library is "ticksync" (libticksync.so, ticksync.dll, libticksync.dylib
// in the package's Plugins folder). iOS links native code statically, so
// there the functions come from "__Internal" (libticksync.a linked into the
// app by Xcode).
using System;
using System.Runtime.InteropServices;

namespace Ticksync
{
    [StructLayout(LayoutKind.Sequential)]
    public struct Ticks
    {
        public long TickUs;      // the server's simulation step, e.g. 16667 for 60 Hz
        public long EpochUs;     // server time of tick 0
        public double Margin;    // safety margin, in units of the round trip's jitter (2.0)
        public double MaxScale;  // the client's simulation runs at 1 +- MaxScale at most (0.05)

        public static Ticks Default(long tickUs, long epochUs)
        {
            return new Ticks { TickUs = tickUs, EpochUs = epochUs, Margin = 2.0, MaxScale = 0.05 };
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Stats
    {
        public ulong Samples, Accepted, RejectedRtt, RejectedDev, RejectedBad;
        public ulong Steps, PathResets, ServerSteps, Resumes;
    }

    internal static class Native
    {
#if UNITY_IOS && !UNITY_EDITOR
        const string Lib = "__Internal";
#else
        const string Lib = "ticksync";
#endif

        [StructLayout(LayoutKind.Sequential)]
        internal struct ClientOptions
        {
            public IntPtr Server;     // const char *
            public ulong PlayerId;
            public IntPtr Token;      // const uint8_t *
            public UIntPtr TokenLen;
            [MarshalAs(UnmanagedType.I1)] public bool Udp;
            public IntPtr Clock;      // const ticksync_config_t *: NULL, the defaults
            public int UnreachableAfter;   // failed attempts in a row before State says Unreachable (0: 3)
        }

        [DllImport(Lib)] internal static extern IntPtr ticksync_new(IntPtr config);
        [DllImport(Lib)] internal static extern void ticksync_destroy(ref IntPtr self);
        [DllImport(Lib)] internal static extern int ticksync_sample(IntPtr self, long t1, long t2, long t3, long t4);
        [DllImport(Lib)] internal static extern long ticksync_now(IntPtr self, long local);
        [DllImport(Lib)] internal static extern long ticksync_error_bound(IntPtr self, long local);
        [DllImport(Lib)] internal static extern long ticksync_expected_error(IntPtr self, long local);
        [DllImport(Lib)] internal static extern long ticksync_offset(IntPtr self, long local);
        [DllImport(Lib)] internal static extern long ticksync_delay(IntPtr self);
        [DllImport(Lib)] internal static extern long ticksync_jitter(IntPtr self);
        [DllImport(Lib)] internal static extern double ticksync_frequency(IntPtr self);
        [DllImport(Lib)] [return: MarshalAs(UnmanagedType.I1)] internal static extern bool ticksync_synced(IntPtr self);
        [DllImport(Lib)] internal static extern void ticksync_stats(IntPtr self, out Stats stats);
        [DllImport(Lib)] internal static extern long ticksync_local_us();
        [DllImport(Lib)] internal static extern long ticksync_server_tick(IntPtr self, ref Ticks t, long local, out double fraction);
        [DllImport(Lib)] internal static extern long ticksync_input_tick(IntPtr self, ref Ticks t, long local);
        [DllImport(Lib)] internal static extern long ticksync_render_time(IntPtr self, ref Ticks t, long local);
        [DllImport(Lib)] internal static extern double ticksync_time_scale(IntPtr self, ref Ticks t, long local, long clientTick, double clientFraction);
        [DllImport(Lib)] internal static extern void ticksync_resync(IntPtr self);
        [DllImport(Lib)] internal static extern void ticksync_resume(IntPtr self);
        [DllImport(Lib)] internal static extern void ticksync_path_changed(IntPtr self);

        [DllImport(Lib)] internal static extern IntPtr ticksync_client_new(ref ClientOptions options, byte[] err);
        [DllImport(Lib)] internal static extern void ticksync_client_destroy(ref IntPtr self);
        [DllImport(Lib)] internal static extern int ticksync_client_run(IntPtr self, int timeoutMs);
        [DllImport(Lib)] internal static extern IntPtr ticksync_client_clock(IntPtr self);
        [DllImport(Lib)] internal static extern IntPtr ticksync_client_session(IntPtr self);
        [DllImport(Lib)] internal static extern uint ticksync_client_connects(IntPtr self);
        [DllImport(Lib)] internal static extern int ticksync_client_start(IntPtr self);
        [DllImport(Lib)] internal static extern int ticksync_client_state(IntPtr self);
        [DllImport(Lib)] internal static extern IntPtr ticksync_client_last_error(IntPtr self);
        [DllImport(Lib)] internal static extern IntPtr ticksync_client_refusal(IntPtr self);
        [DllImport(Lib)] internal static extern void ticksync_session_server_rtt(IntPtr session, out long rtt, out long srtt, out long rttvar);
        [DllImport(Lib)] internal static extern int ticksync_session_last_error(IntPtr session);

        internal const int ErrMax = 256;
    }
}
