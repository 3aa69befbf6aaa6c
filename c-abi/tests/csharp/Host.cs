// A C# host of the skidpad binding (csharp/Skidpad.cs), run under mono by
// tests/csharp_host.rs; it prints the lines that test compares:
//   host.exe reference              the reference scenario's hash
//   host.exe record OUT.skr OUT.skg two AI cars recorded and verified, a ghost
//   host.exe play FILE.skr          a replay played to the end, seeked back
using System;
using System.IO;
using Skidpad;

static class Host
{
    static int Main(string[] args)
    {
        Console.WriteLine("simulation_version " + Library.SimulationVersion);
        switch (args.Length > 0 ? args[0] : "")
        {
            case "reference": Reference(); return 0;
            case "record": Record(args[1], args[2]); return 0;
            case "play": Play(args[1]); return 0;
            default:
                Console.Error.WriteLine("usage: host.exe reference | record OUT.skr OUT.skg | play FILE.skr");
                return 2;
        }
    }

    // The core's reference scenario (skidpad-fixtures), as tests/c/host.c runs it.
    static void Reference()
    {
        string[] presets = { "fwd_hatchback", "rwd_sports", "rwd_sports", "fwd_hatchback" };
        using (var track = Track.Builtin("brandwood"))
        using (var world = new World())
        {
            var cars = new uint[4];
            for (int k = 0; k < 4; k++)
            {
                cars[k] = world.AddCar(presets[k], new StartPose(60.0 - 12.0 * k, k % 2 == 0 ? 2.5 : -2.5, 0.0, 5.0));
                world.SetDriver(cars[k], track);
            }
            for (int step = 0; step < 600; step++)
            {
                switch (step)
                {
                    case 120: world.SetLod(cars[1], Lod.SingleTrack); break;
                    case 200: world.SetWheelSurface(cars[0], Wheel.FrontLeft, 3); break;
                    case 260: world.SetSurface(cars[0], 0); break;
                    case 300: world.SetLod(cars[2], Lod.Full, 500.0); break;
                    case 360: world.SetLod(cars[1], Lod.Full); break;
                    case 420: world.SetLod(cars[3], Lod.Frozen); break;
                    case 480: world.SetLod(cars[3], Lod.Full); break;
                }
                world.Step(1.0 / 60.0);
            }
            Console.WriteLine("reference " + world.Hash());
            Console.WriteLine("car0 speed " + world.Speed(cars[0]).ToString("R") + " channel "
                + world.Channel(cars[0], Library.Channel("speed")).ToString("R"));
        }
    }

    // Two AI cars on brandwood's surface for 20 s, verified here, car 0's ghost.
    static void Record(string replayPath, string ghostPath)
    {
        using (var track = Track.Builtin("brandwood"))
        using (var ground = Ground.OfTrack(track))
        using (var world = new World())
        {
            world.SetGround(ground);
            var first = world.AddCar("rwd_sports", new StartPose(40.0, 0.0, 0.0, 10.0));
            var second = world.AddCar("fwd_hatchback", new StartPose(30.0, 0.0, 0.0, 10.0));
            world.SetDriver(first, track);
            world.SetDriver(second, track);
            using (var recorder = new Recorder(world, track))
            using (var ghostRecorder = new GhostRecorder(first))
            {
                for (int step = 0; step < 1100; step++)
                {
                    recorder.Step(world, 1.0 / 60.0);
                    ghostRecorder.Sample(world, 1.0 / 60.0);
                }
                // A flashback: 100 steps on, then back to step 1100, bit for bit.
                string at1100 = world.Hash().ToString();
                for (int step = 0; step < 100; step++) recorder.Step(world, 1.0 / 60.0);
                recorder.Rewind(world, 1100);
                if (world.Hash().ToString() != at1100) throw new Exception("the rewind did not land at step 1100");
                for (int step = 0; step < 100; step++)
                {
                    recorder.Step(world, 1.0 / 60.0);
                    ghostRecorder.Sample(world, 1.0 / 60.0);
                }
                using (var replay = recorder.Finish(world))
                using (var ghost = ghostRecorder.Finish())
                {
                    Console.WriteLine("recorded " + world.Hash());
                    Console.WriteLine("replay_final " + replay.FinalHash);
                    var bytes = replay.Encode();
                    File.WriteAllBytes(replayPath, bytes);
                    var report = Library.Verify(bytes, Limits.Default(), out string firstDesync);
                    Console.WriteLine("verified steps " + report.Steps + " keyframes " + report.Keyframes + " desyncs " + report.Desyncs);
                    Console.WriteLine("verified_final " + report.FinalHash);
                    Console.WriteLine("rewinds " + report.Rewinds);
                    if (firstDesync != null) throw new Exception(firstDesync);
                    File.WriteAllBytes(ghostPath, ghost.Encode());
                    var end = ghost.PoseAt(ghost.Duration);
                    var car = world.Pose(first);
                    Console.WriteLine("ghost end " + end.X.ToString("R") + " " + end.Y.ToString("R")
                        + " car " + ((float)car.X).ToString("R") + " " + ((float)car.Y).ToString("R"));
                }
            }
        }
    }

    // A replay to its end and, after a seek to its middle, to its end again.
    static void Play(string path)
    {
        Replay replay = Replay.Decode(File.ReadAllBytes(path), Limits.Default());
        using (var player = new Player(replay))
        {
            var steps = replay.StepCount;
            replay.Dispose(); // the player keeps its share
            player.PlayToEnd();
            Console.WriteLine("played steps " + steps + " desyncs " + player.Desyncs);
            Console.WriteLine("played_final " + player.World.Hash());
            player.Seek(steps / 2);
            while (player.Advance()) { }
            Console.WriteLine("replayed_from_middle desyncs " + player.Desyncs);
            Console.WriteLine("replayed_final " + player.World.Hash());
            try
            {
                Replay.Decode(new byte[] { 1, 2, 3 }, Limits.Default());
                throw new Exception("three bytes decoded as a replay");
            }
            catch (SkidpadException e) when (e.Status == Status.Decode)
            {
                Console.WriteLine("refused three bytes: " + e.Message);
            }
        }
    }
}
