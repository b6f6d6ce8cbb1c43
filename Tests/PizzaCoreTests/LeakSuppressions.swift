/// LeakSanitizer's built-in suppressions for `swift test --sanitize=address`: leaks in the toolchain itself,
/// never in pizzad's code — XCTest's runner objects, Foundation's `FileManager.contents(atPath:)` read buffer, and
/// libdispatch continuations still queued when the test process exits; and what those keep of the `Process` and
/// `Pipe` objects made by PizzaDaemonTests, which is test code only (pizzad itself runs in its own processes there,
/// where LeakSanitizer checks it at every exit with nothing suppressed). LeakSanitizer looks this function up by
/// name; in builds without the sanitizer nothing calls it.
@_cdecl("__lsan_default_suppressions")
public func leakSanitizerDefaultSuppressions() -> UnsafePointer<UInt8> {
    suppressions.utf8Start
}

private let suppressions: StaticString = """
    leak:libXCTest.so
    leak:readBytesFromFile
    leak:_dispatch_continuation_alloc_from_heap
    leak:PizzaDaemonTests

    """
