/// The GainMap module. See Package.swift for its layer.
public enum GainMapModule {}
