// swift-tools-version:6.0
import PackageDescription

// The benchmarks are a package of their own so that `make test` never needs SQLite's headers:
// only these peers use SQLite.
let package = Package(
  name: "LiveLogBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "LiveLog", path: "..")],
  targets: [
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    .executableTarget(
      name: "livelog-bench",
      dependencies: [
        .product(name: "LiveLog", package: "LiveLog"),
        .product(name: "LMDB", package: "LiveLog"),
        .product(name: "Changesets", package: "LiveLog"),
        .product(name: "LiveLogReplication", package: "LiveLog"),
        "CSQLite",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
