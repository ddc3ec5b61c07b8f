// Client.cs - a session with a ticksync gate on real sockets (TCP, then UDP
// once synced), reconnecting by itself (ticksync_client_t). Call Run(0) once
// a frame from the thread that owns the client: each reply is timed by when
// it reached the host (the kernel's stamp on Linux and Android; Start() the
// network thread on Windows), so the frame rate does not bias the clock.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Ticksync
{
    // A client that cannot start: a server that is not HOST:PORT, a host name that does not resolve.
    public class TicksyncException : Exception
    {
        public TicksyncException(string message) : base(message) { }
    }

    // The gate refused the session. Reason is docs/PROTOCOL.md's name for it: "replaced" (another
    // login of the player took over), "UNAUTHORIZED" (a wrong or expired token),
    // "UNSUPPORTED_VERSION", "NOT_AUTHENTICATED"; Code is the protocol's error code (0 for replaced).
    public sealed class SessionRefusedException : TicksyncException
    {
        public readonly int Code;
        public readonly string Reason;
        public SessionRefusedException(int code, string reason, string detail)
            : base("ticksync: the gate refused the session: " + reason + " (" + detail + ")")
        {
            Code = code;
            Reason = reason;
        }
    }

    // What a Client is doing, for the game to show ("connecting...", "server unreachable").
    public enum ClientState
    {
        Connecting = 0,    // not synced yet: connecting, logging in, the first exchanges
        Synced = 1,        // Now() is good (and stays so while a lost connection is made again)
        Unreachable = 2,   // unreachableAfter attempts in a row failed; still retrying with backoff
        Refused = 3,       // the gate refused the session (Refusal says why); make a new Client to retry
    }

    public sealed class Client : IDisposable
    {
        IntPtr handle;
        readonly Clock clock;   // a view, made once: no allocation per frame

        public Client(string server, ulong playerId, byte[] token = null, bool udp = true, int unreachableAfter = 0)
        {
            if (server == null || server.IndexOf(':') < 0)
                throw new ArgumentException("server must be \"HOST:PORT\"", "server");
            if (playerId == 0)
                throw new ArgumentOutOfRangeException("playerId", "must be positive");
            if (unreachableAfter < 0)
                throw new ArgumentOutOfRangeException("unreachableAfter", "must be 0 (the default, 3) or more");
            var o = new Native.ClientOptions { PlayerId = playerId, Udp = udp, UnreachableAfter = unreachableAfter };
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
            clock = new Clock(Native.ticksync_client_clock(handle), this);
        }

        // Does the client's work for up to timeoutMs (0: what is ready now, once a frame): replies
        // in, SYNCs and ACKs out, reconnects. Throws SessionRefusedException once the gate refused.
        public void Run(int timeoutMs = 0)
        {
            if (Native.ticksync_client_run(Handle, timeoutMs) < 0) {
                int code = Native.ticksync_session_last_error(Native.ticksync_client_session(handle));
                throw new SessionRefusedException(Refusal == "replaced" ? 0 : code, Refusal, LastError);
            }
        }

        // Starts the network thread, which reads and stamps each reply the moment it arrives: for
        // platforms whose kernel gives no receive stamp (Windows). Run(0) is still called each frame.
        public void Start()
        {
            if (Native.ticksync_client_start(Handle) < 0)
                throw new TicksyncException("ticksync: cannot start the network thread");
        }

        public Clock Clock { get { Check(); return clock; } }
        public long Now() { return Clock.Now(); }
        public bool Synced { get { return Clock.Synced; } }
        public ClientState State { get { return (ClientState) Native.ticksync_client_state(Handle); } }
        // What went wrong last, as a sentence ("" when nothing has).
        public string LastError { get { return Marshal.PtrToStringAnsi(Native.ticksync_client_last_error(Handle)); } }
        // Why the gate refused the session ("" while it has not): "replaced", "UNAUTHORIZED", ...
        public string Refusal { get { return Marshal.PtrToStringAnsi(Native.ticksync_client_refusal(Handle)); } }
        public uint Connects { get { return Native.ticksync_client_connects(Handle); } }

        // The server's measured round trip (µs) of the last SYNC_RESULT; false before one (or for an invalid one).
        public bool TryGetServerRtt(out long rtt)
        {
            long srtt, rttvar;
            Native.ticksync_session_server_rtt(Native.ticksync_client_session(Handle), out rtt, out srtt, out rttvar);
            return rtt >= 0;
        }

        internal bool IsDisposed { get { return handle == IntPtr.Zero; } }

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
