// swift-runtime: costs of Swift's concurrency runtime measured with the seeds' scaling design.
//
// For each point (v task-local values bound, o objects) a benchmark runs a test case and its
// baseline on the same point and prints the difference (the seeds' TSV):
//   task_copy   o unstructured `Task {}`s, each copying the v task-local bindings of the creating
//               task (TaskLocal copyTo)  −  o `Task.detached {}`s, which copy none
//   deinit_hop  o objects released; each deinit hops to an actor by creating `Task { @Sink in }`
//               (copying the v values, as the slow path of an isolated deinit does)  −  the same
//               objects with a regular deinit running the body in place
//   actor_hop   o calls `await sink.touch()` from a task off the actor  −  o calls of the same
//               body on a plain object (v values bound, not copied)
// Columns: Δschedule = time the releasing/creating task was busy; Δtotal = time until the last
// body ran.
//
// Usage:
//   swift-runtime BENCH [--values=MIN:MAX[:linear|logarithmic]] [--objects=MIN:MAX[:...]]
//                       [--points=N] [--seed=S]
//   swift-runtime task_copy --point V:O   (the probe: one point, all on the main thread)

#if canImport(Glibc)
import Glibc
#endif

@globalActor actor Sink {
    static let shared = Sink()
    var touched = 0
    func touch() { touched &+= 1 }
}

/// State isolated to the Sink actor that a `@Sink` closure can touch without another hop.
@Sink var sinkBodies = 0

/// A counter the bodies decrement; the last one resumes whoever waits.  Locked with a pthread
/// mutex: bodies run on the runtime's cooperative threads.
final class Countdown: @unchecked Sendable {
    private var left: Int
    private var waiter: CheckedContinuation<Void, Never>?
    private var lock = pthread_mutex_t()
    init(_ n: Int) { left = n; pthread_mutex_init(&lock, nil) }
    var remaining: Int { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return left }
    func tick() {
        pthread_mutex_lock(&lock)
        left -= 1
        let resume = left == 0 ? waiter : nil
        if resume != nil { waiter = nil }
        pthread_mutex_unlock(&lock)
        resume?.resume()
    }
    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            pthread_mutex_lock(&lock)
            if left == 0 { pthread_mutex_unlock(&lock); c.resume(); return }
            waiter = c
            pthread_mutex_unlock(&lock)
        }
    }
}

func nowNs() -> Int {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// One strong reference per value, as in the seeds.
final class Payload: Sendable {}

/// Distinct task-local keys, created once; binding v of them nests v `withValue` scopes.
let keys: [TaskLocal<Payload?>] = (0..<1000).map { _ in TaskLocal(wrappedValue: nil) }

func withValues<R>(_ v: Int, _ body: () async -> R) async -> R {
    if v == 0 { return await body() }
    return await keys[v - 1].withValue(Payload()) { await withValues(v - 1, body) }
}

// --- objects whose deinit either runs in place or hops to the Sink actor ----------------------

final class Node {
    let done: Countdown
    let hop: Bool
    init(_ done: Countdown, hop: Bool) { self.done = done; self.hop = hop }
    deinit {
        let done = self.done
        if hop {
            Task { @Sink in sinkBodies &+= 1; done.tick() }   // copies the task-locals
        } else {
            done.tick()
        }
    }
}

struct Times { var schedule: Int; var total: Int }

func measure(_ o: Int, _ body: (Countdown) -> Void) async -> Times {
    let done = Countdown(o)
    let t0 = nowNs()
    body(done)
    let t1 = nowNs()
    await done.wait()
    let t2 = nowNs()
    return Times(schedule: t1 - t0, total: t2 - t0)
}

func taskCopy(_ v: Int, _ o: Int, copy: Bool) async -> Times {
    await withValues(v) {
        await measure(o) { done in
            for _ in 0..<o {
                if copy { Task { done.tick() } } else { Task.detached { done.tick() } }
            }
        }
    }
}

func deinitHop(_ v: Int, _ o: Int, hop: Bool) async -> Times {
    await withValues(v) {
        var nodes: [Node] = []
        nodes.reserveCapacity(o)
        let done = Countdown(o)
        for _ in 0..<o { nodes.append(Node(done, hop: hop)) }
        let t0 = nowNs()
        nodes.removeAll()                 // every deinit runs here
        let t1 = nowNs()
        await done.wait()
        let t2 = nowNs()
        return Times(schedule: t1 - t0, total: t2 - t0)
    }
}

final class Plain: @unchecked Sendable {
    var touched = 0
    func touch() async { touched &+= 1 }
}

func actorHop(_ v: Int, _ o: Int, hop: Bool) async -> Times {
    await withValues(v) {
        let plain = Plain()
        let t0 = nowNs()
        for _ in 0..<o {
            if hop { await Sink.shared.touch() } else { await plain.touch() }
        }
        let t1 = nowNs()
        return Times(schedule: t1 - t0, total: t1 - t0)
    }
}

let benchmarks: [String: (Int, Int, Bool) async -> Times] = [
    "task_copy": { v, o, test in await taskCopy(v, o, copy: test) },
    "deinit_hop": { v, o, test in await deinitHop(v, o, hop: test) },
    "actor_hop": { v, o, test in await actorHop(v, o, hop: test) },
]

// --- points -------------------------------------------------------------------------------------

struct Range { var low: Int; var high: Int; var log: Bool; var text: String }

/// xorshift64*: the same points for the same seed on every machine.
struct Rng {
    var state: UInt64
    mutating func next() -> Double {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return Double((state &* 2685821657736338717) >> 11) / Double(1 << 53)
    }
}

func draw(_ r: Range, _ rng: inout Rng) -> Int {
    if r.low == r.high { return r.low }
    let u = rng.next()
    if r.log {
        let lo = log(Double(max(r.low, 1)))
        return Int((exp(lo + u * (log(Double(r.high)) - lo))).rounded())
    }
    return r.low + Int((u * Double(r.high - r.low + 1)).rounded(.down))
}

func fail(_ message: String) -> Never {
    FileHandle2.stderr("swift-runtime: \(message)\n")
    FileHandle2.stderr("usage: swift-runtime \(benchmarks.keys.sorted().joined(separator: "|")) [--values=MIN:MAX[:linear|logarithmic]] [--objects=MIN:MAX[:...]] [--points=N] [--seed=S] | --point V:O\n")
    exit(2)
}

enum FileHandle2 { static func stderr(_ s: String) { fputs(s, Glibc.stderr) } }

func parseRange(_ name: String, _ text: String) -> Range {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2 || parts.count == 3, let lo = Int(parts[0]), let hi = Int(parts[1]), lo >= 0, lo <= hi
    else { fail("--\(name)=\(text): expected MIN:MAX[:linear|logarithmic] with 0 ≤ MIN ≤ MAX") }
    let spacing = parts.count == 3 ? parts[2] : "linear"
    guard spacing == "linear" || spacing == "logarithmic" else { fail("--\(name)=\(text): spacing must be linear or logarithmic") }
    if name == "values" && hi > keys.count { fail("--values=\(text): at most \(keys.count) task-local values") }
    return Range(low: lo, high: hi, log: spacing == "logarithmic", text: "\(lo):\(hi):\(spacing)")
}

let argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first, let bench = benchmarks[name] else { fail("first argument must name a benchmark") }
var values = parseRange("values", "0:100")
var objects = parseRange("objects", "100:4000")
var points = 50
var seed: UInt64 = 1
var single: (Int, Int)? = nil
var rest = argv.dropFirst().makeIterator()
while let arg = rest.next() {
    if arg == "--point" {
        guard let p = rest.next() else { fail("--point needs V:O") }
        let vo = p.split(separator: ":").compactMap { Int($0) }
        guard vo.count == 2, vo[0] >= 0, vo[0] <= keys.count, vo[1] > 0 else { fail("--point \(p): expected V:O, 0 ≤ V ≤ \(keys.count), O > 0") }
        single = (vo[0], vo[1])
        continue
    }
    let kv = arg.split(separator: "=", maxSplits: 1).map(String.init)
    guard kv.count == 2 else { fail("unknown argument \(arg)") }
    switch kv[0] {
    case "--values": values = parseRange("values", kv[1])
    case "--objects": objects = parseRange("objects", kv[1])
    case "--points": guard let n = Int(kv[1]), n > 0 else { fail("--points=\(kv[1]): not a positive whole number") }; points = n
    case "--seed": guard let s = UInt64(kv[1]) else { fail("--seed=\(kv[1]): not a whole number") }; seed = s
    default: fail("unknown argument \(arg)")
    }
}

func run() async {
    var rng = Rng(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
    let chosen = (0..<points).map { _ in (draw(values, &rng), draw(objects, &rng)) }
    _ = await bench(values.high, 1000, true)      // warm-up: runtime threads, allocator, keys
    _ = await bench(values.high, 1000, false)
    print("# \(name) --values=\(values.text) --objects=\(objects.text) --points=\(points) --seed=\(seed)\n#")
    print("# values objects Δschedule(ns) Δtotal(ns)")
    for (v, o) in chosen {
        // Alternate the order so a drift in machine load does not favour either case.
        let (test, base): (Times, Times)
        if Bool(rng.next() < 0.5) {
            test = await bench(v, o, true); base = await bench(v, o, false)
        } else {
            base = await bench(v, o, false); test = await bench(v, o, true)
        }
        print("\(v)\t\(o)\t\(test.schedule - base.schedule)\t\(test.total - base.total)")
    }
}

// --- the probe: one point, every job run on the main thread -----------------------------------

/// A task executor that only collects jobs; `drain` runs them on the calling thread.  The probe
/// puts its tasks here instead of on the runtime's thread pool, so that no second thread races
/// the first and the instruction count repeats exactly (on the pool it varied by up to 1%).
final class CollectingExecutor: TaskExecutor, @unchecked Sendable {
    var jobs: [UnownedJob] = []
    func enqueue(_ job: consuming ExecutorJob) { jobs.append(UnownedJob(job)) }
    func drain() {
        while !jobs.isEmpty {
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// task_copy's test and baseline at one point: o tasks created under v bound task-locals (on
/// the main thread, outside any task, so the bindings live in the thread's fallback storage that
/// `Task {}` copies from), then run.  Returns how many bodies ran.
func probeTaskCopy(_ v: Int, _ o: Int) -> Int {
    let executor = CollectingExecutor()
    var ran = 0
    func bind(_ left: Int, _ body: () -> Void) {
        if left == 0 { body(); return }
        keys[left - 1].withValue(Payload()) { bind(left - 1, body) }
    }
    bind(v) {
        let done = Countdown(2 * o)
        for _ in 0..<o { Task(executorPreference: executor) { done.tick() } }
        for _ in 0..<o { Task.detached(executorPreference: executor) { done.tick() } }
        executor.drain()
        ran = 2 * o - done.remaining
    }
    return ran
}

if let (v, o) = single {
    guard name == "task_copy" else { fail("--point runs task_copy only (the probe)") }
    print("\(name) --point \(v):\(o): \(probeTaskCopy(v, o)) task bodies ran")
    exit(0)
}

let finished = Countdown(1)
Task.detached { await run(); finished.tick() }
// Park the main thread until the detached driver is done (it never runs on the main actor).
let sem = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
sem_init(sem, 0, 0)
Task.detached { await finished.wait(); sem_post(sem) }
sem_wait(sem)
fflush(stdout)
