// Clock.cs - the clock estimator (ticksync_t): owned, or a view of a
// Client's clock, which throws ObjectDisposedException once that Client is
// disposed (it never reaches the freed clock). Times are long microseconds: server times since the Unix
// epoch, local times on the game's monotonic clock (Clock.LocalUs()).
// Nothing here allocates per call, so it can be asked every frame.
using System;

namespace Ticksync
{
    public sealed class Clock : IDisposable
    {
        IntPtr handle;
        readonly bool owned;
        readonly Client owner;   // a view's client: the view is dead once the client is disposed

        public Clock()
        {
            handle = Native.ticksync_new(IntPtr.Zero);
            owned = true;
            if (handle == IntPtr.Zero)
                throw new OutOfMemoryException("ticksync_new");
        }

        internal Clock(IntPtr view, Client owner)
        {
            handle = view;
            owned = false;
            this.owner = owner;
        }

        public static long LocalUs() { return Native.ticksync_local_us(); }

        // One exchange: t1 local send of SYNC, t2 and t3 from SYNC_REPLY, t4 local arrival. 0: accepted.
        public int Sample(long t1, long t2, long t3, long t4) { return Native.ticksync_sample(Handle, t1, t2, t3, t4); }
        // Server time at local; never less than before (0 before the first sample).
        public long Now(long local) { return Native.ticksync_now(Handle, local); }
        public long Now() { return Now(LocalUs()); }
        public long ErrorBound(long local) { return Native.ticksync_error_bound(Handle, local); }
        public long ExpectedError(long local) { return Native.ticksync_expected_error(Handle, local); }
        public long Offset(long local) { return Native.ticksync_offset(Handle, local); }
        public long Delay { get { return Native.ticksync_delay(Handle); } }
        public long Jitter { get { return Native.ticksync_jitter(Handle); } }
        // The local clock's rate minus the server's (+ for fast), e.g. 2e-4 for 200 ppm fast.
        public double Frequency { get { return Native.ticksync_frequency(Handle); } }
        public bool Synced { get { return Native.ticksync_synced(Handle); } }
        public Stats Stats { get { Stats s; Native.ticksync_stats(Handle, out s); return s; } }

        // The timeline: the game's side of ticks.
        public long ServerTick(ref Ticks t, long local, out double fraction) { return Native.ticksync_server_tick(Handle, ref t, local, out fraction); }
        public long InputTick(ref Ticks t, long local) { return Native.ticksync_input_tick(Handle, ref t, local); }
        public long RenderTime(ref Ticks t, long local) { return Native.ticksync_render_time(Handle, ref t, local); }
        public double TimeScale(ref Ticks t, long local, long clientTick, double clientFraction)
        {
            return Native.ticksync_time_scale(Handle, ref t, local, clientTick, clientFraction);
        }
        public void Resync() { Native.ticksync_resync(Handle); }
        /// <summary>Back from pause or the background (OnApplicationPause(false)): counted, then a burst.</summary>
        public void Resume() { Native.ticksync_resume(Handle); }
        /// <summary>The network changed (another interface or access point, e.g. Application.internetReachability
        /// going from ReachableViaLocalAreaNetwork to ReachableViaCarrierDataNetwork): the next reply starts a new
        /// path, then a burst. Only for a real change: a needless one costs the seconds a new path takes to settle.</summary>
        public void PathChanged() { Native.ticksync_path_changed(Handle); }

        IntPtr Handle
        {
            get
            {
                if (handle == IntPtr.Zero || (owner != null && owner.IsDisposed))
                    throw new ObjectDisposedException("Ticksync.Clock", "the clock, or the Client it belongs to, was disposed");
                return handle;
            }
        }

        public void Dispose()
        {
            if (owned && handle != IntPtr.Zero)
                Native.ticksync_destroy(ref handle);
            handle = IntPtr.Zero;
            GC.SuppressFinalize(this);
        }

        ~Clock()
        {
            if (owned && handle != IntPtr.Zero)
                Native.ticksync_destroy(ref handle);
        }
    }
}
