// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "LiveLog",
  // macOS 15 and iOS 18: Synchronization's Mutex and Observation; see Docs/Platforms.md for LMDB on each.
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "LiveLog", targets: ["LiveLog"]),
    .library(name: "Changesets", targets: ["Changesets"]),
    .library(name: "LMDB", targets: ["LMDB"]),
    .library(name: "GitHubSearch", targets: ["GitHubSearch"]),
    // A store's log on a NATS JetStream stream (Docs/Replication.md); only this needs libnats.
    .library(name: "LiveLogReplication", targets: ["LiveLogReplication"]),
    // The command line; its module is LiveLogCommand, so that no two names differ only by case.
    .executable(name: "livelog", targets: ["LiveLogCommand"]),
  ],
  targets: [
    .systemLibrary(
      name: "CLMDB",
      pkgConfig: "lmdb",
      providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
    ),
    .target(name: "LMDB", dependencies: ["CLMDB"], swiftSettings: strictSettings),
    // Our own C: CRC-32C by the processor's instructions, with a run-time check (Encoding/CRC32C.swift).
    .target(name: "CCRC32C"),
    .systemLibrary(
      name: "CNATS",
      pkgConfig: "libnats",
      providers: [.apt(["libnats-dev"]), .brew(["cnats"])]
    ),
    .target(name: "Changesets", swiftSettings: strictSettings),
    .target(name: "LiveLog", dependencies: ["LMDB", "Changesets", "CCRC32C"], swiftSettings: strictSettings),
    .target(name: "GitHubSearch", dependencies: ["LiveLog"], swiftSettings: strictSettings),
    .target(
      name: "LiveLogReplication", dependencies: ["LiveLog", "LMDB", "CNATS"], path: "Sources/Replication",
      swiftSettings: strictSettings),
    .executableTarget(
      name: "LiveLogCommand", dependencies: ["LiveLog", "Changesets", "GitHubSearch", "LiveLogReplication"],
      swiftSettings: strictSettings),
    // What every test target shares: seeded randomness, temporary directories, fixture paths.
    .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
    .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"], swiftSettings: strictSettings),
    .testTarget(
      name: "ChangesetsTests", dependencies: ["Changesets", "TestSupport"], swiftSettings: strictSettings),
    .testTarget(
      name: "LiveLogTests", dependencies: ["LiveLog", "LMDB", "TestSupport"], swiftSettings: strictSettings),
    // An app's record types through the public API only (no @testable import).
    .testTarget(
      name: "RecordTypesTests", dependencies: ["LiveLog", "Changesets", "TestSupport"],
      swiftSettings: strictSettings),
    // Replication through nats-server processes the tests start on loopback ports.
    .testTarget(
      name: "ReplicationTests", dependencies: ["LiveLogReplication", "LiveLog", "TestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "GitHubSearchTests", dependencies: ["GitHubSearch", "LiveLog", "TestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "SearchAppTests",
      dependencies: ["LiveLogCommand", "GitHubSearch", "LiveLog", "Changesets", "TestSupport"],
      swiftSettings: strictSettings),
  ],
  swiftLanguageModes: [.v6]
)
