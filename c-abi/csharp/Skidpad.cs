// skidpad for C#: P/Invoke over the C ABI (include/skidpad.h), the path
// Unity's and Godot's C# take to a native library. Every handle is a
// SafeHandle, so the runtime frees it even when a caller forgets to
// Dispose; every failed call throws a SkidpadException with the library's
// own message. Needs libskidpad_c (.so, .dll or .dylib) where the runtime
// looks for native libraries.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Skidpad
{
    /// <summary>What a call did (SkidpadStatus in the header).</summary>
    public enum Status : int
    {
        Ok = 0,
        NullPointer = 1,
        InvalidArgument = 2,
        UnknownCar = 3,
        Decode = 4,
        SimulationVersion = 5,
        LimitExceeded = 6,
        Simulation = 7,
        BufferTooSmall = 8,
        Panic = 9,
    }

    /// <summary>Level of detail (SkidpadLod).</summary>
    public enum Lod : uint { Full = 0, SingleTrack = 1, Frozen = 2 }

    /// <summary>A wheel (SkidpadWheel).</summary>
    public enum Wheel : uint { FrontLeft = 0, FrontRight = 1, RearLeft = 2, RearRight = 3 }

    /// <summary>A call that did not return SKIDPAD_STATUS_OK.</summary>
    public sealed class SkidpadException : Exception
    {
        public Status Status { get; }

        public SkidpadException(Status status, string message) : base(status + ": " + message)
        {
            Status = status;
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct StartPose
    {
        public double X, Y, Yaw, Speed;

        public StartPose(double x, double y, double yaw, double speed)
        {
            X = x; Y = y; Yaw = yaw; Speed = speed;
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Input
    {
        public double Steer, Throttle, Brake, Handbrake, Clutch, Gear;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Pose
    {
        public double X, Y, Z, Qx, Qy, Qz, Qw, Yaw, Pitch, Roll, SteerAngle, Speed;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct GhostPose
    {
        public float X, Y, Z, Yaw, Pitch, Roll, Steer, Speed;
    }

    /// <summary>A blake3 hash, 32 bytes; ToString gives the hex skidpad prints.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Hash
    {
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 32)]
        public byte[] Bytes;

        public override string ToString()
        {
            var hex = new StringBuilder(64);
            foreach (byte b in Bytes) hex.Append(b.ToString("x2"));
            return hex.ToString();
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Limits
    {
        public uint MaxCars, MaxSubstepsPerStep;
        public ulong MaxSteps, MaxCarSubsteps, MaxKeyframeStateBytes, MaxMetadataBytes, MaxDecodedBytes;

        /// <summary>The defaults a leaderboard uses for strangers' files.</summary>
        public static Limits Default()
        {
            Native.Check(Native.skidpad_limits_default(out Limits limits));
            return limits;
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct VerifyReport
    {
        public uint SimulationVersion, Keyframes;
        public ulong Steps;
        public double Duration;
        public ulong Desyncs, FirstDesyncStep;
        public Hash FinalHash;
        public ulong Rewinds;
        public double RewoundSeconds;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct RecorderOptions
    {
        public uint KeyframeEvery;
        public IntPtr CarriedGround;
        public IntPtr Track;
    }

    /// <summary>A handle the library made; freed by its own free function.</summary>
    public abstract class NativeHandle : SafeHandle
    {
        protected NativeHandle() : base(IntPtr.Zero, true) { }
        protected NativeHandle(IntPtr borrowed) : base(IntPtr.Zero, false) { SetHandle(borrowed); }
        public override bool IsInvalid => handle == IntPtr.Zero;
    }

    public sealed class WorldHandle : NativeHandle
    {
        public WorldHandle() { }
        internal WorldHandle(IntPtr borrowed) : base(borrowed) { }
        protected override bool ReleaseHandle() { Native.skidpad_world_free(handle); return true; }
    }
    public sealed class TrackHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_track_free(handle); return true; }
    }
    public sealed class GroundHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_ground_free(handle); return true; }
    }
    public sealed class RecorderHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_recorder_free(handle); return true; }
    }
    public sealed class ReplayHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_replay_free(handle); return true; }
    }
    public sealed class PlayerHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_player_free(handle); return true; }
    }
    public sealed class GhostRecorderHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_ghost_recorder_free(handle); return true; }
    }
    public sealed class GhostHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_ghost_free(handle); return true; }
    }
    public sealed class BufferHandle : NativeHandle
    {
        protected override bool ReleaseHandle() { Native.skidpad_buffer_free(handle); return true; }
    }

    /// <summary>The C functions, one for one.</summary>
    internal static class Native
    {
        private const string Lib = "skidpad_c";

        [DllImport(Lib)] internal static extern UIntPtr skidpad_last_error_message(byte[] buffer, UIntPtr capacity);
        [DllImport(Lib)] internal static extern uint skidpad_simulation_version();
        [DllImport(Lib)] internal static extern uint skidpad_channel_count();
        [DllImport(Lib)] internal static extern Status skidpad_channel_index(byte[] name, out uint channel);

        [DllImport(Lib)] internal static extern IntPtr skidpad_buffer_data(BufferHandle buffer);
        [DllImport(Lib)] internal static extern UIntPtr skidpad_buffer_len(BufferHandle buffer);
        [DllImport(Lib)] internal static extern void skidpad_buffer_free(IntPtr buffer);

        [DllImport(Lib)] internal static extern Status skidpad_world_new(out WorldHandle world);
        [DllImport(Lib)] internal static extern void skidpad_world_free(IntPtr world);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_ground(WorldHandle world, GroundHandle ground);
        [DllImport(Lib)] internal static extern Status skidpad_world_add_car_preset(WorldHandle world, byte[] preset, ref StartPose pose, out uint car);
        [DllImport(Lib)] internal static extern Status skidpad_world_add_car_json(WorldHandle world, byte[] json, UIntPtr len, ref StartPose pose, out uint car);
        [DllImport(Lib)] internal static extern Status skidpad_world_remove_car(WorldHandle world, uint car);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_input(WorldHandle world, uint car, ref Input input);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_driver(WorldHandle world, uint car, TrackHandle track);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_driver(WorldHandle world, uint car, IntPtr noTrack);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_lod(WorldHandle world, uint car, uint lod, double rateHz);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_surface(WorldHandle world, uint car, byte surface);
        [DllImport(Lib)] internal static extern Status skidpad_world_set_wheel_surface(WorldHandle world, uint car, uint wheel, byte surface);
        [DllImport(Lib)] internal static extern Status skidpad_world_step(WorldHandle world, double dt);
        [DllImport(Lib)] internal static extern Status skidpad_world_pose(WorldHandle world, uint car, out Pose pose);
        [DllImport(Lib)] internal static extern Status skidpad_world_speed(WorldHandle world, uint car, out double speed);
        [DllImport(Lib)] internal static extern Status skidpad_world_channel(WorldHandle world, uint car, uint channel, out double value);
        [DllImport(Lib)] internal static extern Status skidpad_world_hash(WorldHandle world, out Hash hash);

        [DllImport(Lib)] internal static extern Status skidpad_track_builtin(byte[] name, out TrackHandle track);
        [DllImport(Lib)] internal static extern Status skidpad_track_from_json(byte[] json, UIntPtr len, out TrackHandle track);
        [DllImport(Lib)] internal static extern void skidpad_track_free(IntPtr track);
        [DllImport(Lib)] internal static extern Status skidpad_ground_of_track(TrackHandle track, out GroundHandle ground);
        [DllImport(Lib)] internal static extern Status skidpad_ground_from_triangles(double[] vertices, UIntPtr vertexCount, uint[] triangles, UIntPtr triangleCount, byte[] surfaces, out GroundHandle ground);
        [DllImport(Lib)] internal static extern void skidpad_ground_free(IntPtr ground);

        [DllImport(Lib)] internal static extern Status skidpad_recorder_options_default(out RecorderOptions options);
        [DllImport(Lib)] internal static extern Status skidpad_recorder_new(WorldHandle world, ref RecorderOptions options, out RecorderHandle recorder);
        [DllImport(Lib)] internal static extern Status skidpad_recorder_step(RecorderHandle recorder, WorldHandle world, double dt);
        [DllImport(Lib)] internal static extern Status skidpad_recorder_rewind(RecorderHandle recorder, WorldHandle world, ulong step);
        [DllImport(Lib)] internal static extern Status skidpad_recorder_finish(RecorderHandle recorder, WorldHandle world, out ReplayHandle replay);
        [DllImport(Lib)] internal static extern void skidpad_recorder_free(IntPtr recorder);
        [DllImport(Lib)] internal static extern Status skidpad_limits_default(out Limits limits);
        [DllImport(Lib)] internal static extern Status skidpad_replay_encode(ReplayHandle replay, out BufferHandle bytes);
        [DllImport(Lib)] internal static extern Status skidpad_replay_decode(byte[] bytes, UIntPtr len, ref Limits limits, out ReplayHandle replay);
        [DllImport(Lib)] internal static extern Status skidpad_replay_step_count(ReplayHandle replay, out ulong steps);
        [DllImport(Lib)] internal static extern Status skidpad_replay_final_hash(ReplayHandle replay, out Hash hash);
        [DllImport(Lib)] internal static extern void skidpad_replay_free(IntPtr replay);
        [DllImport(Lib)] internal static extern Status skidpad_verify(byte[] bytes, UIntPtr len, ref Limits limits, out VerifyReport report, out BufferHandle desyncText);

        [DllImport(Lib)] internal static extern Status skidpad_player_new(ReplayHandle replay, out PlayerHandle player);
        [DllImport(Lib)] internal static extern Status skidpad_player_advance(PlayerHandle player, out byte played);
        [DllImport(Lib)] internal static extern Status skidpad_player_seek(PlayerHandle player, ulong step);
        [DllImport(Lib)] internal static extern Status skidpad_player_play_to_end(PlayerHandle player);
        [DllImport(Lib)] internal static extern Status skidpad_player_step(PlayerHandle player, out ulong step);
        [DllImport(Lib)] internal static extern Status skidpad_player_desyncs(PlayerHandle player, out ulong desyncs);
        [DllImport(Lib)] internal static extern Status skidpad_player_car_id(PlayerHandle player, uint index, out uint car);
        [DllImport(Lib)] internal static extern IntPtr skidpad_player_world(PlayerHandle player);
        [DllImport(Lib)] internal static extern void skidpad_player_free(IntPtr player);

        [DllImport(Lib)] internal static extern Status skidpad_ghost_recorder_new(uint car, uint every, out GhostRecorderHandle recorder);
        [DllImport(Lib)] internal static extern Status skidpad_ghost_recorder_sample(GhostRecorderHandle recorder, WorldHandle world, double dt);
        [DllImport(Lib)] internal static extern Status skidpad_ghost_recorder_finish(GhostRecorderHandle recorder, out GhostHandle ghost);
        [DllImport(Lib)] internal static extern void skidpad_ghost_recorder_free(IntPtr recorder);
        [DllImport(Lib)] internal static extern Status skidpad_ghost_encode(GhostHandle ghost, out BufferHandle bytes);
        [DllImport(Lib)] internal static extern Status skidpad_ghost_decode(byte[] bytes, UIntPtr len, out GhostHandle ghost);
        [DllImport(Lib)] internal static extern Status skidpad_ghost_duration(GhostHandle ghost, out float seconds);
        [DllImport(Lib)] internal static extern Status skidpad_ghost_pose_at(GhostHandle ghost, float t, out GhostPose pose);
        [DllImport(Lib)] internal static extern void skidpad_ghost_free(IntPtr ghost);

        /// <summary>Throws with the library's message unless the call succeeded.</summary>
        internal static void Check(Status status)
        {
            if (status == Status.Ok) return;
            var needed = (int)skidpad_last_error_message(null, UIntPtr.Zero);
            var buffer = new byte[Math.Max(needed, 1)];
            skidpad_last_error_message(buffer, (UIntPtr)buffer.Length);
            throw new SkidpadException(status, Encoding.UTF8.GetString(buffer, 0, Math.Max(needed - 1, 0)));
        }

        /// <summary>A string as the NUL-terminated UTF-8 the library reads.</summary>
        internal static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text + "\0");

        /// <summary>The bytes of a library buffer, which is then freed.</summary>
        internal static byte[] Take(BufferHandle buffer)
        {
            using (buffer)
            {
                var bytes = new byte[(int)skidpad_buffer_len(buffer)];
                Marshal.Copy(skidpad_buffer_data(buffer), bytes, 0, bytes.Length);
                return bytes;
            }
        }
    }

    /// <summary>The library itself.</summary>
    public static class Library
    {
        /// <summary>The simulation version it simulates and plays.</summary>
        public static uint SimulationVersion => Native.skidpad_simulation_version();

        /// <summary>The id of a telemetry channel by its name ("speed", "engine_rpm", …).</summary>
        public static uint Channel(string name)
        {
            Native.Check(Native.skidpad_channel_index(Native.Utf8(name), out uint channel));
            return channel;
        }

        /// <summary>Verifies replay bytes as a leaderboard does; a desync is a report with Desyncs &gt; 0.</summary>
        public static VerifyReport Verify(byte[] bytes, Limits limits, out string firstDesync)
        {
            Native.Check(Native.skidpad_verify(bytes, (UIntPtr)bytes.Length, ref limits, out VerifyReport report, out BufferHandle text));
            firstDesync = text.IsInvalid ? null : Encoding.UTF8.GetString(Native.Take(text));
            return report;
        }
    }

    /// <summary>A track: a built-in one or a game's own definition (JSON).</summary>
    public sealed class Track : IDisposable
    {
        internal readonly TrackHandle Handle;
        private Track(TrackHandle handle) { Handle = handle; }

        public static Track Builtin(string name)
        {
            Native.Check(Native.skidpad_track_builtin(Native.Utf8(name), out TrackHandle handle));
            return new Track(handle);
        }

        public static Track FromJson(string json)
        {
            var bytes = Encoding.UTF8.GetBytes(json);
            Native.Check(Native.skidpad_track_from_json(bytes, (UIntPtr)bytes.Length, out TrackHandle handle));
            return new Track(handle);
        }

        public void Dispose() => Handle.Dispose();
    }

    /// <summary>What the wheels stand on: a track's surface or a game's triangles.</summary>
    public sealed class Ground : IDisposable
    {
        internal readonly GroundHandle Handle;
        private Ground(GroundHandle handle) { Handle = handle; }

        public static Ground OfTrack(Track track)
        {
            Native.Check(Native.skidpad_ground_of_track(track.Handle, out GroundHandle handle));
            return new Ground(handle);
        }

        /// <summary>Vertices as x, y, z triples (m, z up); three vertex indices per triangle; surfaces null or one per triangle.</summary>
        public static Ground FromTriangles(double[] vertices, uint[] triangles, byte[] surfaces)
        {
            Native.Check(Native.skidpad_ground_from_triangles(vertices, (UIntPtr)(vertices.Length / 3), triangles,
                (UIntPtr)(triangles.Length / 3), surfaces, out GroundHandle handle));
            return new Ground(handle);
        }

        public void Dispose() => Handle.Dispose();
    }

    /// <summary>A world of cars, stepped by the game.</summary>
    public sealed class World : IDisposable
    {
        internal readonly WorldHandle Handle;
        internal World(WorldHandle handle) { Handle = handle; }

        public World()
        {
            Native.Check(Native.skidpad_world_new(out Handle));
        }

        public void SetGround(Ground ground) => Native.Check(Native.skidpad_world_set_ground(Handle, ground.Handle));

        public uint AddCar(string preset, StartPose pose)
        {
            Native.Check(Native.skidpad_world_add_car_preset(Handle, Native.Utf8(preset), ref pose, out uint car));
            return car;
        }

        public uint AddCarFromJson(string definition, StartPose pose)
        {
            var bytes = Encoding.UTF8.GetBytes(definition);
            Native.Check(Native.skidpad_world_add_car_json(Handle, bytes, (UIntPtr)bytes.Length, ref pose, out uint car));
            return car;
        }

        public void RemoveCar(uint car) => Native.Check(Native.skidpad_world_remove_car(Handle, car));
        public void SetInput(uint car, Input input) => Native.Check(Native.skidpad_world_set_input(Handle, car, ref input));

        /// <summary>Hands the car to the AI driver on a track, or back to the game with null.</summary>
        public void SetDriver(uint car, Track track) => Native.Check(track == null
            ? Native.skidpad_world_set_driver(Handle, car, IntPtr.Zero)
            : Native.skidpad_world_set_driver(Handle, car, track.Handle));

        public void SetLod(uint car, Lod lod, double rateHz = 0.0) => Native.Check(Native.skidpad_world_set_lod(Handle, car, (uint)lod, rateHz));
        public void SetSurface(uint car, byte surface) => Native.Check(Native.skidpad_world_set_surface(Handle, car, surface));
        public void SetWheelSurface(uint car, Wheel wheel, byte surface) => Native.Check(Native.skidpad_world_set_wheel_surface(Handle, car, (uint)wheel, surface));
        public void Step(double dt) => Native.Check(Native.skidpad_world_step(Handle, dt));

        public Pose Pose(uint car)
        {
            Native.Check(Native.skidpad_world_pose(Handle, car, out Pose pose));
            return pose;
        }

        public double Speed(uint car)
        {
            Native.Check(Native.skidpad_world_speed(Handle, car, out double speed));
            return speed;
        }

        public double Channel(uint car, uint channel)
        {
            Native.Check(Native.skidpad_world_channel(Handle, car, channel, out double value));
            return value;
        }

        public Hash Hash()
        {
            Native.Check(Native.skidpad_world_hash(Handle, out Hash hash));
            return hash;
        }

        public void Dispose() => Handle.Dispose();
    }

    /// <summary>Records every step of a world; step the world through it.</summary>
    public sealed class Recorder : IDisposable
    {
        private readonly RecorderHandle handle;

        /// <param name="track">The race's track, named in the replay (null: none).</param>
        /// <param name="carriedGround">A game's own ground the replay carries (null: none).</param>
        public Recorder(World world, Track track = null, Ground carriedGround = null, uint keyframeEvery = 0)
        {
            Native.Check(Native.skidpad_recorder_options_default(out RecorderOptions options));
            if (keyframeEvery != 0) options.KeyframeEvery = keyframeEvery;
            // The handles stay referenced by the caller for the call's length.
            options.Track = track == null ? IntPtr.Zero : track.Handle.DangerousGetHandle();
            options.CarriedGround = carriedGround == null ? IntPtr.Zero : carriedGround.Handle.DangerousGetHandle();
            Native.Check(Native.skidpad_recorder_new(world.Handle, ref options, out handle));
            GC.KeepAlive(track);
            GC.KeepAlive(carriedGround);
        }

        public void Step(World world, double dt) => Native.Check(Native.skidpad_recorder_step(handle, world.Handle, dt));

        /// <summary>Takes the world back to recorded step `step` (within the last 600) and the recording with it.</summary>
        public void Rewind(World world, ulong step) => Native.Check(Native.skidpad_recorder_rewind(handle, world.Handle, step));

        public Replay Finish(World world)
        {
            Native.Check(Native.skidpad_recorder_finish(handle, world.Handle, out ReplayHandle replay));
            return new Replay(replay);
        }

        public void Dispose() => handle.Dispose();
    }

    /// <summary>A replay, recorded or decoded.</summary>
    public sealed class Replay : IDisposable
    {
        internal readonly ReplayHandle Handle;
        internal Replay(ReplayHandle handle) { Handle = handle; }

        public static Replay Decode(byte[] bytes, Limits limits)
        {
            Native.Check(Native.skidpad_replay_decode(bytes, (UIntPtr)bytes.Length, ref limits, out ReplayHandle handle));
            return new Replay(handle);
        }

        public byte[] Encode()
        {
            Native.Check(Native.skidpad_replay_encode(Handle, out BufferHandle bytes));
            return Native.Take(bytes);
        }

        public ulong StepCount
        {
            get { Native.Check(Native.skidpad_replay_step_count(Handle, out ulong steps)); return steps; }
        }

        public Hash FinalHash
        {
            get { Native.Check(Native.skidpad_replay_final_hash(Handle, out Hash hash)); return hash; }
        }

        public void Dispose() => Handle.Dispose();
    }

    /// <summary>Plays a replay in a world rebuilt from it.</summary>
    public sealed class Player : IDisposable
    {
        private readonly PlayerHandle handle;

        public Player(Replay replay)
        {
            Native.Check(Native.skidpad_player_new(replay.Handle, out handle));
        }

        /// <summary>Plays one step; false at the end.</summary>
        public bool Advance()
        {
            Native.Check(Native.skidpad_player_advance(handle, out byte played));
            return played != 0;
        }

        public void Seek(ulong step) => Native.Check(Native.skidpad_player_seek(handle, step));
        public void PlayToEnd() => Native.Check(Native.skidpad_player_play_to_end(handle));

        public ulong Desyncs
        {
            get { Native.Check(Native.skidpad_player_desyncs(handle, out ulong desyncs)); return desyncs; }
        }

        public uint CarId(uint index)
        {
            Native.Check(Native.skidpad_player_car_id(handle, index, out uint car));
            return car;
        }

        /// <summary>The world being played, owned by the player: read it, do not step it.</summary>
        public World World => new World(new WorldHandle(Native.skidpad_player_world(handle)));

        public void Dispose() => handle.Dispose();
    }

    /// <summary>Records one car's poses after each step.</summary>
    public sealed class GhostRecorder : IDisposable
    {
        private readonly GhostRecorderHandle handle;

        public GhostRecorder(uint car, uint every = 1)
        {
            Native.Check(Native.skidpad_ghost_recorder_new(car, every, out handle));
        }

        public void Sample(World world, double dt) => Native.Check(Native.skidpad_ghost_recorder_sample(handle, world.Handle, dt));

        public Ghost Finish()
        {
            Native.Check(Native.skidpad_ghost_recorder_finish(handle, out GhostHandle ghost));
            return new Ghost(ghost);
        }

        public void Dispose() => handle.Dispose();
    }

    /// <summary>A ghost: a pose track played without physics.</summary>
    public sealed class Ghost : IDisposable
    {
        private readonly GhostHandle handle;
        internal Ghost(GhostHandle handle) { this.handle = handle; }

        public static Ghost Decode(byte[] bytes)
        {
            Native.Check(Native.skidpad_ghost_decode(bytes, (UIntPtr)bytes.Length, out GhostHandle handle));
            return new Ghost(handle);
        }

        public byte[] Encode()
        {
            Native.Check(Native.skidpad_ghost_encode(handle, out BufferHandle bytes));
            return Native.Take(bytes);
        }

        public float Duration
        {
            get { Native.Check(Native.skidpad_ghost_duration(handle, out float seconds)); return seconds; }
        }

        public GhostPose PoseAt(float t)
        {
            Native.Check(Native.skidpad_ghost_pose_at(handle, t, out GhostPose pose));
            return pose;
        }

        public void Dispose() => handle.Dispose();
    }
}
