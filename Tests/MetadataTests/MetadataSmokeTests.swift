import Testing

@testable import Metadata

@Test func rationalsCompareByValue() {
    #expect(Rational(1, 100) == Rational(10, 1000))
    #expect(Rational(-1, 3) == Rational(1, -3))
    #expect(Rational(1, 3) != Rational(1, 4))
}
