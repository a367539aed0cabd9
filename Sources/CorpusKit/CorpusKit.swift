/// The CorpusKit module. See Package.swift for its layer.
public enum CorpusKitModule {}
