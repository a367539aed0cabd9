import ColorScience

extension HeifDecodedImage {
    /// 8-bit interleaved RGB decoded by another reader (libavif), in the same shape as libheif's.
    public init(rgb8 samples: [UInt16], width: Int, height: Int, nclx: NCLX?, icc: [UInt8]?, codedBitDepth: Int) {
        self.init(
            width: width, height: height, bitDepth: 8, channels: 3, samples: samples, nclx: nclx, icc: icc,
            codedBitDepth: codedBitDepth)
    }
}

extension HeifDecodedImage {
    /// Any decoded image, field by field: the one libheif decoded in a worker process and sent back.
    public init(
        decoded samples: [UInt16], width: Int, height: Int, bitDepth: Int, channels: Int, nclx: NCLX?, icc: [UInt8]?,
        codedBitDepth: Int
    ) {
        self.init(
            width: width, height: height, bitDepth: bitDepth, channels: channels, samples: samples, nclx: nclx,
            icc: icc, codedBitDepth: codedBitDepth)
    }
}
