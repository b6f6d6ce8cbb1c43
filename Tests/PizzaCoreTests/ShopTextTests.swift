import PizzaCore
import Testing

/// Text a person typed, checked once where it comes in (issue 79's "text that cannot hurt").
@Suite("Shop text: nothing that drives a terminal, a printer or reads backwards")
struct ShopTextTests {
    func refusal(_ text: String, lineFeeds: Bool = false) -> String? {
        ShopText.refusal(text, field: "customer", characters: 0...1000, bytes: 4000, lineFeeds: lineFeeds)?.description
    }

    @Test(
        "controls, C1 controls, bidirectional overrides and isolates are refused, naming the character",
        arguments: [
            ("\u{1B}[2J", "U+001B"), ("Ada\u{7}", "U+0007"), ("\u{7F}", "U+007F"), ("a\u{85}b", "U+0085"),
            ("\u{9B}31m", "U+009B"), ("abc\u{202E}fed", "U+202E"), ("\u{2067}x", "U+2067"), ("\u{0}", "U+0000"),
            ("line\nfeed", "U+000A"), ("tab\there", "U+0009"),
        ])
    func refused(_ text: String, _ named: String) throws {
        let message = try #require(refusal(text), "\(text.debugDescription) was allowed")
        #expect(message.contains(named), "\(message)")
    }

    @Test("what people type passes: accents either way, Vietnamese, emoji families, Arabic, a note's line feeds")
    func allowed() {
        for text in [
            "Zoë", "Zoe\u{308}", "Nguyễn", "Nguye\u{302}\u{303}n", "👨‍👩‍👧‍👦 family", "محمد", "O'Brien & Sons", "",
            "日本語の名前",
        ] {
            #expect(refusal(text) == nil, "\(text.debugDescription)")
        }
        #expect(refusal("ring twice\nthird floor", lineFeeds: true) == nil)
    }

    @Test("a character with more than four combining marks, and text past its byte limit, are refused")
    func limits() throws {
        let zalgo = "a" + String(repeating: "\u{301}", count: 3000)
        #expect(zalgo.count == 1)
        #expect(try #require(refusal(zalgo)).contains("bytes") || refusal(zalgo)!.contains("marks"))
        #expect(try #require(refusal("a" + String(repeating: "\u{301}", count: 5))).contains("5 combining marks"))
        #expect(refusal("a" + String(repeating: "\u{301}", count: 4)) == nil)
        // 1,000 characters of 4 bytes each is the most; one more byte is refused whatever the character count.
        #expect(refusal(String(repeating: "😀", count: 1000)) == nil)
        #expect(try #require(refusal(String(repeating: "😀", count: 1000) + "a")).contains("4000 bytes"))
        #expect(try #require(refusal(String(repeating: "a", count: 1001))).contains("longer than 1000 characters"))
    }

    @Test("display text is stored composed (NFC); ASCII as it is")
    func normalized() {
        #expect(ShopText.normalized("Zoe\u{308}").unicodeScalars.count == 3)
        #expect(ShopText.normalized("Zoe\u{308}") == "Zoë")
        #expect(ShopText.normalized("Zoe\u{308}").utf8.elementsEqual("Zoë".utf8))
        #expect(ShopText.normalized("plain") == "plain")
    }

    @Test("what pizzactl shows of unchecked text: each unprintable scalar as an escape")
    func escaped() {
        #expect(ShopText.escaped("\u{1B}[2Jhi") == "\\u{001B}[2Jhi")
        #expect(ShopText.escaped("a\u{202E}b") == "a\\u{202E}b")
        #expect(ShopText.escaped("two\nlines") == "two\\u{000A}lines")
        #expect(ShopText.escaped("two\nlines", lineFeeds: true) == "two\nlines")
        #expect(ShopText.escaped("Zoë") == "Zoë")
    }
}
