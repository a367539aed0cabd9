import ColorScience

extension HeifDecodedImage {
    /// 8-bit interleaved RGB decoded by another reader (libavif), in the same shape as libheif's.
    public init(rgb8 samples: [UInt16], width: Int, height: Int, nclx: NCLX?, icc: [UInt8]?, codedBitDepth: Int) {
        self.init(
            width: width, height: height, bitDepth: 8, channels: 3, samples: samples, nclx: nclx, icc: icc,
            codedBitDepth: codedBitDepth)
    }
}
