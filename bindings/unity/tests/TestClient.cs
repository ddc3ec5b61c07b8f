// tests/TestClient.cs - the C# binding against the real gate, built with
// Debian's mcs with the package's Runtime/*.cs and run by mono through
// bindings/stack.sh: logs in, syncs, shows the host's real time within
// 2 ms on loopback, reports the server's round trip from SYNC_RESULT, never
// goes back, the timeline, and a refused session as an exception.
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

    static void Refused(string secureGate)
    {
        int code = -1;
        try {
            using (var game = new Client(secureGate, 4402)) {   // no token; the gate has a secret
                var sw = Stopwatch.StartNew();
                while (sw.ElapsedMilliseconds < 5000)
                    game.Run(10);
            }
        } catch (SessionRefusedException e) {
            code = e.Code;
        }
        Check(code == 4, "UNAUTHORIZED as an exception with its code: " + code);
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
        Refused(secure);
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
