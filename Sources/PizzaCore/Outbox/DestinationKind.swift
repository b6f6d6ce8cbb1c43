/// What an outbox destination is (CONTRACT section 16): a kitchen printer or a signed webhook.
public enum DestinationKind: String, Sendable, Codable, CaseIterable {
    /// An ESC/POS network printer.
    case printer
    /// An HTTPS endpoint that receives Standard Webhooks.
    case webhook
}
