import RawDecoder

/// How many rows of two frames of one size differ in any sample (each row as `copyRow` copies it).
public func differingRows(_ x: RawFrame, _ y: RawFrame) -> Int {
    var a = [UInt16](repeating: 0, count: 3 * x.width)
    var b = a
    var differing = 0
    for row in 0..<x.height {
        a.withUnsafeMutableBufferPointer { x.copyRow(row, into: $0) }
        b.withUnsafeMutableBufferPointer { y.copyRow(row, into: $0) }
        if a != b { differing += 1 }
    }
    return differing
}
