import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// x265's rate-distortion Lagrange multipliers for 10-bit coding, named so that encoder settings stay data: the x265
/// option `lambda-file` takes a name here, never a path. x265 weighs distortion against bits with a λ per QP (for
/// SAD-based decisions) and a λ² (for SSE-based ones: the rate-distortion checks and RDOQ). `x265` names its built-in
/// tables; `lambda2xF` the built-in λ with the built-in λ² times F (0.25 … 8), e.g. `lambda2x1.6`.
///
/// x265 3.5 keeps the tables in process-wide globals, one set per bit depth, which an encoder opening with a
/// `lambda-file` overwrites and nothing restores. So every 10-bit encode names its tables (`x265` when none is
/// given), an encode whose tables are not the ones loaded loads them by file (the built-in ones too, read from
/// libx265's exported tables before any file is loaded), and `Gate` keeps encoders of different tables from running
/// at once. 8- and 12-bit encodes take no `lambda-file`: their tables stay x265's own.
/// docs/quality-ladder.md "Small: the rate-distortion λ², measured".
public enum X265Lambdas {
    /// The name of x265's built-in tables.
    public static let builtIn = "x265"

    /// The λ² factor a name gives (1 for `x265`), or nil when it names no tables.
    public static func lambda2Factor(_ name: String) -> Double? {
        if name == builtIn { return 1 }
        guard name.hasPrefix("lambda2x"), let f = Double(name.dropFirst("lambda2x".count)), f >= 0.25, f <= 8
        else { return nil }
        return f
    }

    /// The number of QPs in each table (x265's `QP_MAX_MAX` + 1).
    static let count = 70

    /// x265's built-in 10-bit tables (λ, λ²), read once from libx265's exported globals
    /// (`x265_10bit::x265_lambda_tab`, `x265_10bit::x265_lambda2_tab`). Read before any file is loaded, because only
    /// a named encode loads one and a named encode reads this first. Nil when the symbols are not found or hold
    /// values that are not a table (positive, finite, increasing).
    static let tables: (lambda: [Double], lambda2: [Double])? = {
        func read(_ symbol: String) -> [Double]? {
            guard let p = dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) else { return nil }
            let values = Array(UnsafeBufferPointer(start: p.assumingMemoryBound(to: Double.self), count: count))
            let ordered = zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
            return ordered && values.allSatisfy({ $0.isFinite && $0 > 0 }) ? values : nil
        }
        guard let l = read("_ZN10x265_10bit15x265_lambda_tabE"), let l2 = read("_ZN10x265_10bit16x265_lambda2_tabE")
        else { return nil }
        return (l, l2)
    }()

    /// The `lambda-file` text of the named tables: λ's 70 values, then λ²'s, in the shortest decimal form that reads
    /// back as the same double (x265 parses each with `sscanf("%lf")`).
    static func text(_ name: String) throws(HeifError) -> String {
        guard let f = lambda2Factor(name) else {
            throw HeifError(operation: "x265 lambda tables", message: "no tables named '\(name)'")
        }
        guard let t = tables else {
            throw HeifError(
                operation: "x265 lambda tables",
                message: "libx265's built-in 10-bit tables cannot be read here, so '\(name)' cannot be coded")
        }
        func lines(_ values: [Double]) -> String {
            stride(from: 0, to: values.count, by: 10).map {
                values[$0..<min(values.count, $0 + 10)].map { "\($0)" }.joined(separator: ", ") + "\n"
            }.joined()
        }
        return "# lambda\n" + lines(t.lambda) + "# lambda2 x \(f)\n" + lines(t.lambda2.map { $0 * f })
    }

    /// A path x265 can open for the named tables (a nameless file, once per process).
    static func path(for name: String) throws(HeifError) -> String {
        try files.path(name, text: text(name))
    }

    private static let files = NamelessFiles(operation: "x265 lambda tables")

    /// Lets encoders of the same tables run side by side and one of other tables only when none runs. The first of
    /// a run of encoders whose tables are not the ones x265 holds is handed the tables' file, and runs alone: it
    /// loads them when its encoder opens. Tables loaded by an encode that failed count as unknown (the next encode
    /// loads its own).
    // unchecked: `loaded`, `running` and `active` are read and written only with `condition` locked.
    final class Gate: @unchecked Sendable {
        static let shared = Gate()

        private let condition = NSCondition()
        /// The tables x265 holds: its own until a file is loaded; nil when unknown.
        private var loaded: String? = X265Lambdas.builtIn
        /// The tables of the encoders running, and how many run.
        private var running: String?
        private var active = 0

        /// Runs `body` when x265 holds (or `body` loads) the tables `name`: `body` gets the tables' file when it must
        /// load them (pass it as `lambda-file`), nil when they are loaded already.
        /// - Throws: `HeifError` for a name that names no tables or tables that cannot be written; what `body` throws.
        func run<T>(tables name: String, _ body: (String?) throws -> T) throws -> T {
            guard X265Lambdas.lambda2Factor(name) != nil else {
                throw HeifError(operation: "x265 lambda tables", message: "no tables named '\(name)'")
            }
            condition.lock()
            while active > 0 && (running != name || loaded != name) { condition.wait() }
            let load = loaded != name
            running = name
            active += 1
            condition.unlock()
            var ok = false
            defer {
                condition.lock()
                active -= 1
                if load { loaded = ok ? name : nil }
                if active == 0 { running = nil }
                condition.broadcast()
                condition.unlock()
            }
            let file = load ? try X265Lambdas.path(for: name) : nil
            let result = try body(file)
            ok = true
            return result
        }
    }
}
