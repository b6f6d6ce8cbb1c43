import PizzaCore

/// ESC/POS, the command language of kitchen and receipt printers (Epson's, and nearly every other's), in text mode:
/// some printers have no raster images. Text goes out in code page 858 (Latin-1 letters and €), so Zoë prints as
/// Zoë; a letter the page lacks becomes its nearest ASCII (Łukasz: Lukasz).
public enum EscPos {
    static let escape: UInt8 = 0x1B
    static let groupSeparator: UInt8 = 0x1D
    static let dataLinkEscape: UInt8 = 0x10

    /// `ESC @`: forget any earlier mode.
    static let initialize: [UInt8] = [escape, 0x40]
    /// `ESC t 19`: code page PC858.
    static let codePage858: [UInt8] = [escape, 0x74, 19]
    /// `GS V 66 3`: feed to the cutter (and three lines more), then a partial cut.
    static let feedAndCut: [UInt8] = [groupSeparator, 0x56, 66, 3]

    /// `DLE EOT n`: the printer answers one status byte at once, even while it prints.
    public enum StatusQuery: UInt8, Sendable, CaseIterable {
        /// Bit 3: offline.
        case printer = 1
        /// Bit 2: cover open; bit 5: stopped at paper end; bit 6: an error.
        case offlineCause = 2
        /// Bits 5 and 6: paper end; bits 2 and 3: paper near its end.
        case paperSensor = 4

        /// The query's three bytes.
        public var bytes: [UInt8] { [EscPos.dataLinkEscape, 0x04, rawValue] }
    }

    /// What the printer's status bytes say, worst first.
    public enum Status: String, Sendable, CaseIterable {
        /// No connection, or no answer to a status query.
        case unreachable
        case coverOpen = "cover_open"
        case paperOut = "paper_out"
        case offline
        case error
        case online

        /// The status from the answers to ``StatusQuery/printer``, ``StatusQuery/offlineCause`` and
        /// ``StatusQuery/paperSensor``, in that order.
        public init(printer: UInt8, offlineCause: UInt8, paper: UInt8) {
            if offlineCause & 0x04 != 0 {
                self = .coverOpen
            } else if paper & 0x60 != 0 || offlineCause & 0x20 != 0 {
                self = .paperOut
            } else if offlineCause & 0x40 != 0 {
                self = .error
            } else if printer & 0x08 != 0 {
                self = .offline
            } else {
                self = .online
            }
        }

        /// The status in words, for the board and `pizzactl outbox`.
        public var words: String {
            switch self {
            case .unreachable: "unreachable"
            case .coverOpen: "cover open"
            case .paperOut: "paper out"
            case .offline: "offline"
            case .error: "error"
            case .online: "ready"
            }
        }
    }

    /// The bytes that print `ticket` and cut it.
    public static func bytes(of ticket: KitchenTicket) -> [UInt8] {
        var bytes = initialize + codePage858
        var style = KitchenTicket.Style.normal
        for line in ticket.lines {
            if line.style != style {
                bytes += select(line.style)
                style = line.style
            }
            bytes += encode(line.text)
            bytes.append(0x0A)
        }
        if style != .normal { bytes += select(.normal) }
        return bytes + feedAndCut
    }

    /// `ESC a` (alignment), `GS !` (size) and `ESC E` (bold) for `style`.
    static func select(_ style: KitchenTicket.Style) -> [UInt8] {
        switch style {
        case .normal: [escape, 0x61, 0, groupSeparator, 0x21, 0x00, escape, 0x45, 0]
        case .bold: [escape, 0x61, 0, groupSeparator, 0x21, 0x00, escape, 0x45, 1]
        case .large: [escape, 0x61, 1, groupSeparator, 0x21, 0x11, escape, 0x45, 1]
        }
    }

    /// `text` in code page 858; what it cannot show, transliterated (or `?`).
    public static func encode(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for character in text {
            // One character is one byte (or a transliteration): composed where the code page has the letter with
            // its accent, else its base letter without the marks (a name of "a" and 3,000 accents prints "a").
            guard let scalar = Self.printedScalar(of: character) else { continue }
            if scalar.value >= 0x20 && scalar.value < 0x7F {
                bytes.append(UInt8(scalar.value))
            } else if let byte = upperHalf[scalar] {
                bytes.append(byte)
            } else if let plain = transliterations[scalar] {
                bytes += Array(plain.utf8)
            } else {
                bytes.append(UInt8(ascii: "?"))
            }
        }
        return bytes
    }

    /// The one scalar a character prints as: itself, its NFC composition, or its base letter.
    static func printedScalar(of character: Character) -> Unicode.Scalar? {
        let scalars = character.unicodeScalars
        if scalars.count == 1 { return scalars.first }
        let composed = ShopText.normalized(String(character)).unicodeScalars
        if composed.count == 1 { return composed.first }
        return composed.first
    }

    /// `text` as the printer shows it: ``encode(_:)`` read back.
    public static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                encode(text).map { $0 < 0x80 ? Unicode.Scalar($0) : page858[Int($0) - 0x80] }))
    }

    /// Code page 858's bytes 0x80-0xFF, as text (the box-drawing characters included, so that every byte decodes).
    public static let page858: [Unicode.Scalar] = Array(
        ("ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀"
            + "ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u{AD}±‗¾¶§÷¸°¨·¹³²■\u{A0}").unicodeScalars)

    private static let upperHalf: [Unicode.Scalar: UInt8] = Dictionary(
        uniqueKeysWithValues: page858.enumerated().map { ($0.element, UInt8(0x80 + $0.offset)) })

    /// Letters of Central and Northern European names that code page 858 lacks, as a reader would write them
    /// without the mark.
    static let transliterations: [Unicode.Scalar: String] = {
        let pairs: [(String, String)] = [
            ("Ł", "L"), ("ł", "l"), ("Ą", "A"), ("ą", "a"), ("Ć", "C"), ("ć", "c"), ("Ę", "E"), ("ę", "e"),
            ("Ń", "N"), ("ń", "n"), ("Ś", "S"), ("ś", "s"), ("Ź", "Z"), ("ź", "z"), ("Ż", "Z"), ("ż", "z"),
            ("Č", "C"), ("č", "c"), ("Ď", "D"), ("ď", "d"), ("Ě", "E"), ("ě", "e"), ("Ň", "N"), ("ň", "n"),
            ("Ř", "R"), ("ř", "r"), ("Š", "S"), ("š", "s"), ("Ť", "T"), ("ť", "t"), ("Ů", "U"), ("ů", "u"),
            ("Ž", "Z"), ("ž", "z"), ("Ő", "O"), ("ő", "o"), ("Ű", "U"), ("ű", "u"), ("Ğ", "G"), ("ğ", "g"),
            ("İ", "I"), ("Ş", "S"), ("ş", "s"), ("Đ", "D"), ("đ", "d"), ("Œ", "OE"), ("œ", "oe"), ("Ā", "A"),
            ("ā", "a"), ("Ē", "E"), ("ē", "e"), ("Ī", "I"), ("ī", "i"), ("Ū", "U"), ("ū", "u"), ("‘", "'"),
            ("’", "'"), ("“", "\""), ("”", "\""), ("–", "-"), ("—", "-"), ("…", "..."),
        ]
        return Dictionary(uniqueKeysWithValues: pairs.map { ($0.0.unicodeScalars.first!, $0.1) })
    }()
}
