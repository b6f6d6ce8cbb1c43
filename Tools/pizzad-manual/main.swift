// pizzad-manual DIRECTORY [DATE]: writes pizzad.8 and pizzad.yaml.5 (mdoc) into DIRECTORY, from the code they
// describe (PizzaDaemon's ManualPages). DATE (YYYY-MM-DD) defaults to $SOURCE_DATE_EPOCH's day, else today.
import Foundation
import PizzaDaemon

let arguments = CommandLine.arguments.dropFirst()
guard (1...2).contains(arguments.count), let directory = arguments.first else {
    FileHandle.standardError.write(Data("usage: pizzad-manual DIRECTORY [YYYY-MM-DD]\n".utf8))
    exit(64)
}
let seconds = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init)
let formatter = DateFormatter()
formatter.locale = Locale(identifier: "en_US_POSIX")
formatter.timeZone = TimeZone(identifier: "UTC")
formatter.dateFormat = "MMMM d, yyyy"
var date = formatter.string(from: seconds.map { Date(timeIntervalSince1970: $0) } ?? Date())
if arguments.count == 2 {
    let day = DateFormatter()
    day.locale = formatter.locale
    day.timeZone = formatter.timeZone
    day.dateFormat = "yyyy-MM-dd"
    guard let given = day.date(from: arguments[arguments.index(after: arguments.startIndex)]) else {
        FileHandle.standardError.write(Data("pizzad-manual: the date must be YYYY-MM-DD\n".utf8))
        exit(64)
    }
    date = formatter.string(from: given)
}
for page in ManualPages.all(date: date) {
    let path = directory + "/" + page.file
    do {
        try page.source.write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("pizzad-manual: cannot write \(path): \(error)\n".utf8))
        exit(73)
    }
    print(path)
}
