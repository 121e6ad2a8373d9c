// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "LiveLog",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "LiveLog", targets: ["LiveLog"]),
    .library(name: "Changesets", targets: ["Changesets"]),
    .library(name: "LMDB", targets: ["LMDB"]),
    .library(name: "GitHubSearch", targets: ["GitHubSearch"]),
    .executable(name: "livelog", targets: ["livelog"]),
  ],
  targets: [
    .systemLibrary(
      name: "CLMDB",
      pkgConfig: "lmdb",
      providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
    ),
    .target(name: "LMDB", dependencies: ["CLMDB"], swiftSettings: strictSettings),
    .target(name: "Changesets", swiftSettings: strictSettings),
    .target(name: "LiveLog", dependencies: ["LMDB", "Changesets"], swiftSettings: strictSettings),
    .target(name: "GitHubSearch", dependencies: ["LiveLog"], swiftSettings: strictSettings),
    .executableTarget(
      name: "livelog", dependencies: ["LiveLog", "Changesets", "GitHubSearch"], swiftSettings: strictSettings),
    .testTarget(name: "LMDBTests", dependencies: ["LMDB"], swiftSettings: strictSettings),
    .testTarget(name: "ChangesetsTests", dependencies: ["Changesets"], swiftSettings: strictSettings),
    .testTarget(name: "LiveLogTests", dependencies: ["LiveLog", "LMDB"], swiftSettings: strictSettings),
    .testTarget(
      name: "GitHubSearchTests", dependencies: ["GitHubSearch", "LiveLog"], swiftSettings: strictSettings),
    .testTarget(
      name: "SearchAppTests", dependencies: ["livelog", "GitHubSearch", "LiveLog", "Changesets"],
      swiftSettings: strictSettings),
  ],
  swiftLanguageModes: [.v6]
)
