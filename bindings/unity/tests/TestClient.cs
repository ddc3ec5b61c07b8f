// tests/TestClient.cs - the C# binding against the real gate, built with
// Debian's mcs with the package's Runtime/*.cs and the README's GameClock,
// and run by mono through bindings/stack.sh: logs in, syncs, the README's
// frame loop at 60 Hz within 0.5 ms of the host's real time (with and
// without the network thread), the server's round trip from SYNC_RESULT,
// never back, the timeline, disposed views that throw, an unreachable
// gate, and refusals with their reasons.
// Prints "N passed, N failed".
using System;
using System.Diagnostics;
using Ticksync;

static class TestClient
{
    static int passed, failed;

    static void Check(bool ok, string what)
    {
        if (ok) {
            passed++;
        } else {
            failed++;
            Console.Error.WriteLine("FAIL: " + what);
        }
    }

    static long RealUs()
    {
        return (DateTime.UtcNow - new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc)).Ticks / 10;
    }

    static void Estimator()
    {
        using (var c = new Clock()) {
            Check(c.Sample(1000, 1006000, 1006000, 11000) == 0, "accepted");
            Check(c.Sample(100000, 1104000, 1104000, 110000) == 0, "accepted");
            Check(c.Now(200000) == 1199000, "now " + c.Now(200000));
            Check(c.Delay == 10000, "delay");
            Check(c.Stats.Accepted == 2, "stats");
            c.PathChanged();   // the platform says the network changed: the next reply starts a new path
            Check(c.Sample(200000, 1206000, 1206000, 210000) == 0, "accepted");
            Check(c.Stats.PathResets == 1, "a new path");
        }
    }

    static void Client(string gate)
    {
        using (var game = new Client(gate, 4401)) {
            var sw = Stopwatch.StartNew();
            while (!game.Synced && sw.ElapsedMilliseconds < 10000)
                game.Run(10);
            Check(game.Synced, "synced within 10 s (" + sw.ElapsedMilliseconds + " ms, connects " + game.Connects + ", samples " + game.Clock.Stats.Samples + ")");
            long last = 0;
            int backwards = 0;
            var ticks = Ticks.Default(16667, 0);
            long before = GC.CollectionCount(0);
            sw.Restart();
            while (sw.ElapsedMilliseconds < 2500) {   // the game loop: nothing here allocates
                game.Run(5);
                long now = game.Now(), local = Clock.LocalUs();
                backwards += now < last ? 1 : 0;
                last = now;
                double fraction;
                game.Clock.ServerTick(ref ticks, local, out fraction);
                game.Clock.InputTick(ref ticks, local);
            }
            // The host's real time is read on both sides of the clock's, the
            // tightest of five tries, so a pause between the reads is not
            // counted as the clock's error. Within 2 ms, or within the error
            // bound the clock itself gives when the path was worse than that.
            long off = 0, width = long.MaxValue, bound = 0;
            for (int i = 0; i < 5; i++) {
                long r0 = RealUs(), at = Clock.LocalUs(), serverUs = game.Clock.Now(at), r1 = RealUs();
                if (r1 - r0 < width) {
                    width = r1 - r0;
                    off = serverUs - (r0 + r1) / 2;
                    bound = game.Clock.ErrorBound(at);
                }
            }
            Check(Math.Abs(off) <= Math.Max(2000, bound) + width / 2,
                  "server time within 2 ms of the host's, or its error bound: " + off + " us (bound " + bound + ")");
            Check(backwards == 0, "never backwards: " + backwards);
            Check(GC.CollectionCount(0) == before, "no garbage collected during the loop");
            long rtt;
            Check(game.TryGetServerRtt(out rtt) && rtt >= 0 && rtt < 50000, "the server's round trip: " + rtt);
            Check(game.Connects == 1, "one connection");
            long l = Clock.LocalUs();
            double f;
            long server = game.Clock.ServerTick(ref ticks, l, out f);
            Check(game.Clock.InputTick(ref ticks, l) > server, "inputs lead the server");
            Check(game.Clock.RenderTime(ref ticks, l) < game.Now(), "others are drawn in the past");
            double scale = game.Clock.TimeScale(ref ticks, l, server, f);
            Check(scale >= 0.95 && scale <= 1.05, "scale " + scale);
        }
    }

    // The README's GameClock, as a game drives it: Update once a frame at 60 Hz.
    static void FrameLoop(string gate, ulong player, bool thread)
    {
        var game = new GameClock();
        game.Start(gate, player);
        if (thread)
            game.Game.Start();
        var errors = new double[600];
        var rtts = new long[600];
        int n = 0, nrtt = 0, backwards = 0, uncovered = 0;
        long last = 0, syncedAt = 0;
        var sw = Stopwatch.StartNew();
        long before = -1;
        for (int frame = 0; frame < 8 * 60; frame++) {
            long r0 = RealUs();
            game.Update();
            long r1 = RealUs(), local = Clock.LocalUs();
            if (game.Game.State == ClientState.Synced) {
                if (syncedAt == 0)
                    syncedAt = local;
                backwards += game.ServerNow < last ? 1 : 0;
                last = game.ServerNow;
                // how far the read lies outside the host's clock over the frame's Update
                double off = Math.Max(0, Math.Max(r0 - game.ServerNow, game.ServerNow - r1));
                uncovered += off > game.Game.Clock.ErrorBound(local) ? 1 : 0;
                if (local - syncedAt >= 1000000 && n < errors.Length) {
                    if (before < 0)
                        before = GC.CollectionCount(0);
                    errors[n++] = off;
                }
                long frameRtt;
                if (game.Game.TryGetServerRtt(out frameRtt) && frameRtt >= 0 && nrtt < rtts.Length)
                    rtts[nrtt++] = frameRtt;
            }
            long wait = (frame + 1) * 1000 / 60 - sw.ElapsedMilliseconds;
            if (wait > 0)
                System.Threading.Thread.Sleep((int) wait);
        }
        Array.Sort(errors, 0, n);
        double p50 = n > 0 ? errors[n / 2] : -1, p99 = n > 0 ? errors[n * 99 / 100] : -1;
        Console.Error.WriteLine("GameClock.Update at 60 Hz" + (thread ? " (network thread)" : "") + ": " + n
                                + " reads, off the host's clock p50 " + p50 + " us, p99 " + p99 + " us");
        Check(n > 300, "synced and read each frame: " + n);
        Check(p99 >= 0 && p99 <= 500, "p99 within 0.5 ms of the host's clock: " + p99 + " us");
        Check(backwards == 0, "never backwards: " + backwards);
        Check(uncovered == 0, "inside the bound every frame: " + uncovered);
        Check(before >= 0 && GC.CollectionCount(0) == before, "no garbage collected during the loop");
        // an ACK held to the next frame would put half a frame (8-17 ms) in the
        // median; a single exchange may take 2 ms on a loaded host
        Array.Sort(rtts, 0, nrtt);
        long rtt = nrtt > 0 ? rtts[nrtt / 2] : -1;
        Check(rtt >= 0 && rtt < 2000, "the server's round trip holds no frame: median " + rtt + " us");
        Clock view = game.Game.Clock;
        game.OnDestroy();
        Check(Throws<ObjectDisposedException>(() => view.Now()), "a disposed client's clock view throws");
        Check(Throws<ObjectDisposedException>(() => view.ErrorBound(Clock.LocalUs())), "... every member of it");
        Check(Throws<ObjectDisposedException>(() => game.Game.Run(0)), "a disposed client throws");
    }

    static bool Throws<T>(Action a) where T : Exception
    {
        try {
            a();
        } catch (T) {
            return true;
        }
        return false;
    }

    static void Unreachable()
    {
        using (var game = new Client("127.0.0.1:1", 4405, null, true, 3)) {   // nothing listens on port 1
            var sw = Stopwatch.StartNew();
            while (game.State != ClientState.Unreachable && sw.ElapsedMilliseconds < 5000)
                game.Run(10);
            Check(game.State == ClientState.Unreachable, "unreachable after 3 attempts: " + game.State);
            Check(game.LastError.Contains("refused"), "the last error says why: " + game.LastError);
            uint tries = game.Connects;
            sw.Restart();
            while (sw.ElapsedMilliseconds < 2500)
                game.Run(10);
            Check(game.Connects > tries, "it keeps retrying");
        }
    }

    static void Replaced(string gate)
    {
        using (var first = new Client(gate, 4406)) {
            var sw = Stopwatch.StartNew();
            while (first.State != ClientState.Synced && sw.ElapsedMilliseconds < 5000)
                first.Run(10);
            string reason = null;
            using (var second = new Client(gate, 4406)) {
                sw.Restart();
                try {
                    while (sw.ElapsedMilliseconds < 5000) {
                        second.Run(0);
                        first.Run(10);
                    }
                } catch (SessionRefusedException e) {
                    reason = e.Reason;
                }
            }
            Check(reason == "replaced", "a second login refuses the first as replaced: " + reason);
            Check(first.State == ClientState.Refused && first.Refusal == "replaced", "state " + first.State);
        }
    }

    static void Refused(string secureGate)
    {
        int code = -1;
        string reason = null;
        try {
            using (var game = new Client(secureGate, 4402)) {   // no token; the gate has a secret
                var sw = Stopwatch.StartNew();
                while (sw.ElapsedMilliseconds < 5000)
                    game.Run(10);
            }
        } catch (SessionRefusedException e) {
            code = e.Code;
            reason = e.Reason;
        }
        Check(code == 4 && reason == "UNAUTHORIZED", "UNAUTHORIZED as an exception with its code and reason: " + code + " " + reason);
        bool threw = false;
        try {
            new Client("127.0.0.1:1", 0);
        } catch (ArgumentOutOfRangeException) {
            threw = true;
        }
        Check(threw, "player 0 is refused");
        threw = false;
        try {
            new Client("no.such.host.invalid:7700", 1);
        } catch (TicksyncException) {
            threw = true;
        }
        Check(threw, "an unknown host is an exception");
    }

    static int Main()
    {
        string gate = Environment.GetEnvironmentVariable("TICKSYNC_GATE");
        string secure = Environment.GetEnvironmentVariable("TICKSYNC_SECURE_GATE");
        if (gate == null || secure == null) {
            Console.Error.WriteLine("run me through bindings/stack.sh");
            return 2;
        }
        Estimator();
        Client(gate);
        FrameLoop(gate, 4403, false);
        FrameLoop(gate, 4404, true);
        Unreachable();
        Replaced(gate);
        Refused(secure);
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
