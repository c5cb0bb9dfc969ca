#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// 64-bit words from the operating system's secure random source (`getentropy`), fetched
/// 256 bytes at a time rather than with a system call per word as `SystemRandomNumberGenerator`
/// does on Linux.
package struct SecureRandomWords: RandomNumberGenerator, Sendable {
    private var buffer = [UInt64](repeating: 0, count: 32)  // getentropy's limit: 256 bytes
    private var position = 32

    /// A generator whose first word fetches the first 256 bytes.
    package init() {}

    /// The next word.
    package mutating func next() -> UInt64 {
        if position == buffer.count { refill() }
        defer { position += 1 }
        return buffer[position]
    }

    private mutating func refill() {
        let filled = buffer.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) == 0 }
        if !filled {
            var system = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = system.next() }
        }
        position = 0
    }
}
