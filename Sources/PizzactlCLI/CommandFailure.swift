/// A command that ran but whose answer means failure (a broken audit chain, a failed check).
struct CommandFailure: Error {
    let message: String
}
