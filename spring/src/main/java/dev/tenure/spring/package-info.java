/** Tenure for Spring: a Spring Integration lock registry and Spring Boot auto-configuration. */
@NullMarked
package dev.tenure.spring;

import org.jspecify.annotations.NullMarked;
