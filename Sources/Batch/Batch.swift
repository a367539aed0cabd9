/// The Batch module. See Package.swift for its layer.
public enum BatchModule {}
