package dev.converge.cli;

import dev.converge.provisioning.validation.PublicId;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A {@code --site} value: the site's public id ({@code site_...}), or a database id an older server showed. */
final class SiteIdConverter implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
        return PublicId.SITE.parse(value).map(PublicId.Ref::text)
                .orElseThrow(() -> new TypeConversionException(PublicId.SITE.expected()));
    }
}
