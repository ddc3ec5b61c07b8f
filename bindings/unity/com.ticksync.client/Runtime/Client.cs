// Client.cs - a session with a ticksync gate on real sockets (TCP, then UDP
// once synced), reconnecting by itself (ticksync_client_t). Call Run(0) once
// a frame from the thread that owns the client.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Ticksync
{
    public class TicksyncException : Exception
    {
        public TicksyncException(string message) : base(message) { }
    }

    // The gate refused the session; Code is the protocol's error (4: UNAUTHORIZED).
    public sealed class SessionRefusedException : TicksyncException
    {
        public readonly int Code;
        public SessionRefusedException(int code) : base("ticksync: the gate refused the session (error " + code + ")")
        {
            Code = code;
        }
    }

    public sealed class Client : IDisposable
    {
        IntPtr handle;
        readonly Clock clock;   // a view, made once: no allocation per frame

        public Client(string server, ulong playerId, byte[] token = null, bool udp = true)
        {
            if (server == null || server.IndexOf(':') < 0)
                throw new ArgumentException("server must be \"HOST:PORT\"", "server");
            if (playerId == 0)
                throw new ArgumentOutOfRangeException("playerId", "must be positive");
            var o = new Native.ClientOptions { PlayerId = playerId, Udp = udp };
            var err = new byte[Native.ErrMax];
            o.Server = Marshal.StringToHGlobalAnsi(server);
            o.Token = IntPtr.Zero;
            try {
                if (token != null) {
                    o.Token = Marshal.AllocHGlobal(token.Length);
                    Marshal.Copy(token, 0, o.Token, token.Length);
                    o.TokenLen = (UIntPtr) token.Length;
                }
                handle = Native.ticksync_client_new(ref o, err);   // copies what it keeps
            } finally {
                Marshal.FreeHGlobal(o.Server);
                if (o.Token != IntPtr.Zero)
                    Marshal.FreeHGlobal(o.Token);
            }
            if (handle == IntPtr.Zero) {
                int n = Array.IndexOf(err, (byte) 0);
                throw new TicksyncException("ticksync: " + Encoding.ASCII.GetString(err, 0, n < 0 ? err.Length : n));
            }
            clock = new Clock(Native.ticksync_client_clock(handle));
        }

        // Does the client's work for up to timeoutMs: replies in, SYNCs out,
        // reconnects. Throws SessionRefusedException when the gate refused.
        public void Run(int timeoutMs = 0)
        {
            if (Native.ticksync_client_run(Handle, timeoutMs) < 0)
                throw new SessionRefusedException(Native.ticksync_session_last_error(Native.ticksync_client_session(handle)));
        }

        public Clock Clock { get { Check(); return clock; } }
        public long Now() { return Clock.Now(); }
        public bool Synced { get { return Clock.Synced; } }
        public uint Connects { get { return Native.ticksync_client_connects(Handle); } }

        // The server's measured round trip (µs) of the last SYNC_RESULT; false before one (or for an invalid one).
        public bool TryGetServerRtt(out long rtt)
        {
            long srtt, rttvar;
            Native.ticksync_session_server_rtt(Native.ticksync_client_session(Handle), out rtt, out srtt, out rttvar);
            return rtt >= 0;
        }

        IntPtr Handle { get { Check(); return handle; } }

        void Check()
        {
            if (handle == IntPtr.Zero)
                throw new ObjectDisposedException("Ticksync.Client");
        }

        public void Dispose()
        {
            if (handle != IntPtr.Zero)
                Native.ticksync_client_destroy(ref handle);
            handle = IntPtr.Zero;
            GC.SuppressFinalize(this);
        }

        ~Client()
        {
            if (handle != IntPtr.Zero)
                Native.ticksync_client_destroy(ref handle);
        }
    }
}
