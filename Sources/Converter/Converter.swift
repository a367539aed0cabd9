/// The Converter module. See Package.swift for its layer.
public enum ConverterModule {}
