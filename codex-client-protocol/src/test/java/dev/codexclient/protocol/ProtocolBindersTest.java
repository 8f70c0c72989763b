package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.junit.jupiter.api.Test;

/** The generated table of root binders gives the binder each type names in its annotation, for every root type. */
class ProtocolBindersTest {

    private static void sameAsAnnotated(Class<?> type) {
        JsonDeserialize annotation = type.getAnnotation(JsonDeserialize.class);
        assertThat(annotation).as("%s names its binder", type.getName()).isNotNull();
        assertThat(ProtocolBinders.rootBinder(type)).as("the table's binder of %s", type.getName())
                .isNotNull()
                .isExactlyInstanceOf(annotation.using());
    }

    @Test
    void theNotificationUnionAndEveryClientRequestsResultHaveTheirAnnotatedBinder() {
        sameAsAnnotated(ServerNotification.class);
        for (MethodDescriptor<?, ?> method : ClientRequestMethods.ALL) {
            sameAsAnnotated(method.resultType());
        }
    }

    @Test
    void everyCallGivesANewBinderAndOtherTypesHaveNone() {
        assertThat(ProtocolBinders.rootBinder(ServerNotification.class))
                .isNotSameAs(ProtocolBinders.rootBinder(ServerNotification.class));
        assertThat(ProtocolBinders.rootBinder(String.class)).isNull();
        assertThat(ProtocolBinders.rootBinder(ThreadItem.class)).isNull();
    }
}
