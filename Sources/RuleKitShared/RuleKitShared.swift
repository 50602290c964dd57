// RuleKitShared is the shared data container of `../shared/seeds/` (app extensions sharing data with their
// host): `SharedContainer` keeps named collections in files that several processes read and write safely
// (a temporary file, synced and renamed into place), and `SharedContainerWatcher` turns another process's
// changes into events. The rules extension keeps its last good rules there.
