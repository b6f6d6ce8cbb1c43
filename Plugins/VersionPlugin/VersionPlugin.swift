import Foundation
import PackagePlugin

/// Writes `PizzadVersion.swift` from the first entry of `debian/changelog`, the one place the version is written:
/// the package, `pizzad --version` and `pizzactl --version` then cannot disagree.
@main
struct VersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let changelog = context.package.directoryURL.appending(path: "debian/changelog")
        let output = context.pluginWorkDirectoryURL.appending(path: "PizzadVersion.swift")
        return [
            .buildCommand(
                displayName: "Reading pizzad's version from debian/changelog",
                executable: try context.tool(named: "pizzad-version").url,
                arguments: [changelog.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [changelog],
                outputFiles: [output]
            )
        ]
    }
}
