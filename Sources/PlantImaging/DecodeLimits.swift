/// Guards applied before any pixel memory is allocated.
public struct DecodeLimits: Sendable, Hashable, Codable {
    /// Images whose shorter side is below this are refused as too small to identify anything.
    public var minimumShortSide: Int
    /// Images whose header claims more pixels than this are refused (decompression bombs).
    public var maximumPixels: Int
    /// Files larger than this are refused before parsing.
    public var maximumBytes: Int

    public init(minimumShortSide: Int = 64, maximumPixels: Int = 64_000_000, maximumBytes: Int = 100_000_000) {
        self.minimumShortSide = minimumShortSide
        self.maximumPixels = maximumPixels
        self.maximumBytes = maximumBytes
    }

    /// 64 px minimum short side, 64 megapixels (a 48 MP phone photo fits), 100 MB.
    public static let `default` = DecodeLimits()
}
