package dev.codexclient.approvals.boot;

import dev.codexclient.approvals.testing.RealCodex;
import dev.codexclient.spring.boot.CodexClientBuilderCustomizer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The test service in this JVM, its client spawning the real codex against the fixture's scripted model. */
public final class Services {
    private Services() {
    }

    /** Starts the service with {@code args} (Spring Boot's command-line properties), on a port of its own. */
    public static ConfigurableApplicationContext withRealCodex(RealCodex codex, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "--server.port=0";
        System.arraycopy(args, 0, all, 1, args.length);
        return new SpringApplicationBuilder(InboxTestApplication.class)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("realCodex",
                        (CodexClientBuilderCustomizer) builder -> builder.codexBinary(RealCodex.binary())
                                .workingDirectory(codex.workspace).stdio(codex.model::applyEnvironment)))
                .run(all);
    }

    /** {@return the port the service listens on} */
    public static int port(ConfigurableApplicationContext service) {
        return Integer.parseInt(service.getEnvironment().getProperty("local.server.port"));
    }
}
